// C11 <threads.h>: mtx_lock/mtx_unlock sections, a checked mtx_lock (`!= thrd_success`),
// cnd_wait and cnd_timedwait inside a section, a wrapper over mtx_lock, found and converted
// like pthread ones (glibc's mtx_t and cnd_t are the pthread objects: rcl/threads.h, which the
// rewritten file includes); waits become rcl_cnd_wait and rcl_cnd_timedwait; mtx_trylock is
// left alone and stays mutually exclusive with the delegated sections.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <stdio.h>
#include <threads.h>
#include <time.h>

static mtx_t m, qm;
static cnd_t nonempty;
static long counter, queued, taken, timeouts, busy;

// CHECK: #include <rcl/threads.h>
// CHECK-LABEL: static int bump(long n)
// CHECK: rcl_delegate_ctx((pthread_mutex_t *)(&m), rcl_cs_bump_1,
static int bump(long n)
{
    if (mtx_lock(&m) != thrd_success) return -1;
    if (n < 0) {
        mtx_unlock(&m);
        return 0;
    }
    counter += n;
    mtx_unlock(&m);
    return 1;
}

static void stats_lock(void) { mtx_lock(&m); }
static void stats_unlock(void) { mtx_unlock(&m); }

// CHECK-LABEL: static void bump_twice(void)
// CHECK: rcl_delegate((pthread_mutex_t *)(&m), rcl_cs_bump_twice_1,
static void bump_twice(void)
{
    stats_lock();
    counter += 2;
    stats_unlock();
}

// CHECK-LABEL: static int put(void)
static int put(void)
{
    mtx_lock(&qm);
    queued++;
    cnd_signal(&nonempty);
    mtx_unlock(&qm);
    return 0;
}

// CHECK: rcl_cnd_timedwait(&nonempty, &qm, &until)
// CHECK-LABEL: static void take(void)
static void take(void)
{
    struct timespec until;
    timespec_get(&until, TIME_UTC);
    until.tv_sec += 5;
    mtx_lock(&qm);
    while (queued == 0)
        if (cnd_timedwait(&nonempty, &qm, &until) == thrd_timedout) timeouts++;
    queued--;
    taken++;
    mtx_unlock(&qm);
}

// CHECK: rcl_cnd_wait(&nonempty, &qm)
static void take_blocking(void)
{
    mtx_lock(&qm);
    while (queued == 0)
        cnd_wait(&nonempty, &qm);
    queued--;
    taken++;
    mtx_unlock(&qm);
}

static void peek(void)
{
    if (mtx_trylock(&m) == thrd_success) {
        // ERR-DAG: c11-threads.c:[[@LINE-1]]:9: rcl: cannot convert critical section: mtx_trylock section: left as is
        busy += 0;
        mtx_unlock(&m);
    }
}
// ERR-DAG: rcl: summary: 5 converted, 1 refused
// STATS: rcl: server {{[0-9]+}} {{.*}}: {{[1-9][0-9]*}} sections served

static int producer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2000; i++) put();
    return 0;
}

static int consumer(void *arg)
{
    for (int i = 0; i < 1000; i++) {
        if (arg) take(); else take_blocking();
        bump(i % 7 == 0 ? -1 : 1);
        bump_twice();
        peek();
    }
    return 0;
}

int main(void)
{
    thrd_t p, c1, c2;
    mtx_init(&m, mtx_plain);
    mtx_init(&qm, mtx_plain);
    cnd_init(&nonempty);
    thrd_create(&c1, consumer, &m);
    thrd_create(&c2, consumer, NULL);
    thrd_create(&p, producer, NULL);
    thrd_join(p, NULL);
    thrd_join(c1, NULL);
    thrd_join(c2, NULL);
    printf("counter=%ld queued=%ld taken=%ld\n", counter, queued, taken);
    return timeouts != 0;
}
