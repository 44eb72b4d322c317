// pthread_cancel of a thread whose delegated section waits on a condition: the wait is a
// cancellation point as with plain pthreads. The section is abandoned at its wait, the thread
// takes the mutex again before its cleanup handlers run (the handler unlocks it), no
// condition signal is consumed, and the server goes on serving. Before the fix the cancel had
// no effect and the join timed out.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s
// CHECK: round 0: join=ok canceled=1 cleanups=1 held-in-cleanup=1
// CHECK: round 1: join=ok canceled=1 cleanups=2 held-in-cleanup=1
// CHECK: round 2: join=ok canceled=1 cleanups=3 held-in-cleanup=1
// CHECK: survivor woke: 1, sections after: 1000
#define _GNU_SOURCE
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, cleanups, held_in_cleanup = 1, survivor_woke;
static atomic_int entered;
static long count;

static void on_cancel(void *p) {
    /* POSIX: the mutex is held again when the cleanup handlers run */
    if (pthread_mutex_trylock(p) == 0) { /* default mutex: trylock by the owner fails */
        held_in_cleanup = 0;
        pthread_mutex_unlock(p);
    }
    cleanups++;
    pthread_mutex_unlock(p);
}
static int wait_ready(void *arg) {
    (void)arg;
    entered++;
    while (!ready)
        rcl_cond_wait(&cv, &m);
    return 0;
}
static void *waiter(void *x) {
    (void)x;
    pthread_cleanup_push(on_cancel, &m);
    rcl_delegate(&m, wait_ready, NULL);
    pthread_cleanup_pop(0);
    return NULL;
}
static int inc(void *arg) {
    (void)arg;
    return (int)++count;
}
static int wait_once(void *arg) {
    (void)arg;
    while (!ready)
        rcl_cond_wait(&cv, &m);
    survivor_woke = 1;
    return 0;
}
static int set_ready(void *arg) {
    (void)arg;
    ready = 1;
    pthread_cond_signal(&cv);
    return 0;
}
static void *survivor(void *x) {
    (void)x;
    rcl_delegate(&m, wait_once, NULL);
    return NULL;
}

int main(void) {
    alarm(30);
    for (int round = 0; round < 3; round++) {
        pthread_t t;
        void *res = NULL;
        int before = atomic_load(&entered);
        CHECK(pthread_create(&t, NULL, waiter, NULL) == 0);
        while (atomic_load(&entered) == before)
            usleep(1000);
        usleep(round * 20000); /* cancel early in the wait, and later */
        pthread_cancel(t);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 10;
        int rc = pthread_timedjoin_np(t, &res, &ts);
        pthread_mutex_lock(&m);
        printf("round %d: join=%s canceled=%d cleanups=%d held-in-cleanup=%d\n", round,
               rc ? "TIMEOUT" : "ok", res == PTHREAD_CANCELED, cleanups, held_in_cleanup);
        pthread_mutex_unlock(&m);
        fflush(stdout);
        if (rc) return 1;
    }
    /* The server still serves, and a signal reaches the remaining waiter. */
    pthread_t s;
    CHECK(pthread_create(&s, NULL, survivor, NULL) == 0);
    usleep(20000);
    for (int i = 0; i < 1000; i++)
        rcl_delegate(&m, inc, NULL);
    rcl_delegate(&m, set_ready, NULL);
    pthread_join(s, NULL);
    printf("survivor woke: %d, sections after: %ld\n", survivor_woke, count);
    return 0;
}
