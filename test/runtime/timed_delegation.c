// Timed delegation (rcl_delegate_timed, pass.c "Timed requests"): a section runs if and only
// if the call returns 0, never after its caller gave up, never beside another section of the
// lock; a lock held locally past the deadline times the call out without running it; a free
// lock is had even with a deadline in the past; a deadline the timed lock refuses gives its
// EINVAL. The race part posts requests whose deadlines fall while the server is busy with
// another client's long section or while a local thread holds the mutex, so that clients
// withdraw requests, post again before the server dropped them, and exit with one pending. A
// deadline centuries away (2^40 s after boot, on CLOCK_MONOTONIC) never times out, however
// long the lock is held (the wait's arithmetic overflowed into the past: the fuzzer's seed
// 15692 aborted when its far timed lock failed).
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// RUN: env RCL_MODE=delegate RCL_SERVERS=2 RCL_SPIN_NS=0 RCL_SERVER_SPIN_NS=0 %t | FileCheck %s
// RUN: env RCL_MODE=delegate RCL_LOCAL_WAIT_US=20 %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s
// RUN: env RCL_MODE=adaptive RCL_ADAPTIVE_FLIP=2 %t | FileCheck %s
// RUN: env RCL_MODE=adaptive %t | FileCheck %s
// CHECK: held: ETIMEDOUT, not run
// CHECK: free, deadline passed: ran
// CHECK: refused deadline: EINVAL when held, ran when free
// CHECK: race: ran == returned 0, no overlap, no section after its caller returned
// CHECK: far deadline: 600 of 600 ran
// STATS: timed lock calls: {{[1-9][0-9]*}}, {{[1-9][0-9]*}} of them timed out
#include "Inputs/harness.h"
#include <errno.h>
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static atomic_int inside;
static long counter; /* under m */
static atomic_long ran_total, zero_total;

struct ctx {
    long seen; /* the section writes the counter it saw */
    int live;  /* 1 while its caller is inside the call */
};

static int section(void *arg) {
    struct ctx *c = arg;
    CHECK(atomic_exchange(&inside, 1) == 0); /* another section of m runs */
    CHECK(c->live == 1);                     /* its caller had returned */
    c->seen = ++counter;
    atomic_fetch_add(&ran_total, 1);
    atomic_store(&inside, 0);
    return 7;
}

static struct timespec in_ns(long ns) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    long sec = ns / 1000000000, nsec = t.tv_nsec + ns % 1000000000;
    if (nsec < 0) nsec += 1000000000, sec--;
    t.tv_sec += sec + nsec / 1000000000;
    t.tv_nsec = nsec % 1000000000;
    return t;
}

/* by_pointer: the context goes by pointer (the server reads the caller's frame). */
static int timed(long ns, struct ctx *c, int by_pointer) {
    struct timespec t = in_ns(ns);
    int result = -1;
    c->live = 1;
    int err = rcl_delegate_timed(&m, section, c, by_pointer ? 0 : sizeof *c, CLOCK_REALTIME, &t,
                                 &result);
    c->live = 0;
    CHECK(err != 0 || result == 7);
    return err;
}

static atomic_int holder_go, holder_done;
static void *holder(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    atomic_store(&holder_go, 1);
    while (!atomic_load(&holder_done))
        usleep(1000);
    pthread_mutex_unlock(&m);
    return NULL;
}

/* A local thread takes m for 300 us at a time, 100 us apart. */
static atomic_int stop;
static void *local_loop(void *arg) {
    (void)arg;
    while (!atomic_load(&stop)) {
        pthread_mutex_lock(&m);
        CHECK(atomic_exchange(&inside, 1) == 0);
        counter++;
        atomic_fetch_add(&ran_total, 1);
        atomic_fetch_add(&zero_total, 1); /* (a section that ran: counted on both sides) */
        usleep(300);
        atomic_store(&inside, 0);
        pthread_mutex_unlock(&m);
        usleep(100);
    }
    return NULL;
}

/* Another lock (on the same server with one server), whose long sections keep it busy. */
static pthread_mutex_t other = PTHREAD_MUTEX_INITIALIZER;
static int long_section(void *arg) {
    (void)arg;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000);
    return 0;
}
static void *busy_other(void *arg) {
    (void)arg;
    while (!atomic_load(&stop)) {
        rcl_delegate(&other, long_section, NULL);
        usleep(200);
    }
    return NULL;
}

static void *client(void *arg) {
    long id = (long)arg;
    unsigned seed = (unsigned)(id + 1) * 2654435761u;
    for (int i = 0; i < 400; i++) {
        struct ctx c = {0, 0};
        seed = seed * 1103515245u + 12345u;
        long ns = (long)(seed >> 16) % 300000; /* 0 to 300 us */
        if (timed(ns, &c, i & 1) == 0) { /* (a plain call may follow at once: below) */
            atomic_fetch_add(&zero_total, 1);
        } else {
            memset(&c, 0xa5, sizeof c); /* a late section would find this */
            c.live = 0;
        }
        usleep((seed >> 8) % 200); /* spread the calls over the local loop's holds */
        if (i % 7 == 0) { /* a plain call right after a possibly withdrawn one */
            struct ctx d = {0, 1};
            CHECK(rcl_delegate_ctx(&m, section, &d, sizeof d) == 7);
            atomic_fetch_add(&zero_total, 1);
        }
    }
    /* The last call's deadline is short: the thread may exit with a withdrawn request. */
    struct ctx c = {0, 0};
    if (timed(1000, &c, 1) == 0) atomic_fetch_add(&zero_total, 1);
    return NULL;
}

static atomic_long far_ran;
static void *far_client(void *arg) {
    (void)arg;
    struct timespec far = {(time_t)1 << 40, 0}; /* CLOCK_MONOTONIC: 2^40 s after boot */
    for (int i = 0; i < 200; i++) {
        struct ctx c = {0, 1};
        int result = -1;
        if (rcl_delegate_timed(&m, section, &c, sizeof c, CLOCK_MONOTONIC, &far, &result) == 0)
            atomic_fetch_add(&far_ran, 1);
        usleep(50);
    }
    return NULL;
}

int main(void) {
    struct ctx c = {0, 0};

    /* 1. Held locally past the deadline: ETIMEDOUT, the section did not run. */
    pthread_t h;
    CHECK(pthread_create(&h, NULL, holder, NULL) == 0);
    while (!atomic_load(&holder_go))
        usleep(100);
    long before = atomic_load(&ran_total);
    int err = timed(5000000, &c, 0);
    CHECK(err == ETIMEDOUT);
    CHECK(atomic_load(&ran_total) == before);
    printf("held: %s, not run\n", err == ETIMEDOUT ? "ETIMEDOUT" : strerror(err));

    /* 3a. A deadline the timed lock refuses, lock held: its EINVAL. */
    struct timespec bad = in_ns(0);
    bad.tv_nsec = 2000000000;
    int result = -1;
    c.live = 1;
    int einval = rcl_delegate_timed(&m, section, &c, sizeof c, CLOCK_REALTIME, &bad, &result);
    c.live = 0;
    atomic_store(&holder_done, 1);
    CHECK(pthread_join(h, NULL) == 0);

    /* 2. Free, deadline already passed: had anyway. */
    CHECK(timed(-1000000, &c, 0) == 0);
    CHECK(c.seen == counter);
    printf("free, deadline passed: ran\n");

    /* 3b. ... lock free: had, as pthread_mutex_timedlock has it. */
    c.live = 1;
    int free_bad = rcl_delegate_timed(&m, section, &c, sizeof c, CLOCK_REALTIME, &bad, &result);
    c.live = 0;
    CHECK(einval == EINVAL && free_bad == 0 && result == 7);
    printf("refused deadline: EINVAL when held, ran when free\n");

    /* 4. The race. */
    atomic_store(&ran_total, 0);
    atomic_store(&zero_total, 0);
    pthread_t loc, busy;
    CHECK(pthread_create(&loc, NULL, local_loop, NULL) == 0);
    CHECK(pthread_create(&busy, NULL, busy_other, NULL) == 0);
    run_threads(3, client);
    atomic_store(&stop, 1);
    CHECK(pthread_join(loc, NULL) == 0);
    CHECK(pthread_join(busy, NULL) == 0);
    CHECK(atomic_load(&ran_total) == atomic_load(&zero_total));
    printf("race: ran == returned 0, no overlap, no section after its caller returned\n");

    /* 5. Far deadlines, against the local loop's holds: each call waits as long as it takes. */
    atomic_store(&stop, 0);
    CHECK(pthread_create(&loc, NULL, local_loop, NULL) == 0);
    run_threads(3, far_client);
    atomic_store(&stop, 1);
    CHECK(pthread_join(loc, NULL) == 0);
    printf("far deadline: %ld of 600 ran\n", atomic_load(&far_ran));
    return 0;
}
