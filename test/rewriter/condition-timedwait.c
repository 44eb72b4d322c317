// Case 8: pthread_cond_timedwait and pthread_cond_clockwait inside a section become
// rcl_cond_timedwait and rcl_cond_clockwait (same arguments). With nobody signalling, the wait
// returns ETIMEDOUT at its deadline; when another delegated section signals while this one
// waits, it returns 0. The `waiting` flag makes the signaller act only once the waiter has
// released the mutex inside the wait, so the signalled case always goes through the wait. No
// timing is asserted: the signalled waits have deadlines far away.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && timeout 60 %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: FileCheck %s --check-prefix=OUT < %t.rcl.out
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, waiting;

// CHECK: #include <rcl/rcl.h>
// CHECK: struct rcl_cs_timed_wait_1_ctx {
// CHECK-NEXT:     int *rc;
// CHECK-NEXT:     const struct timespec *deadline;
// CHECK-NEXT: };
// CHECK: static RCL_SECTION_INLINE int rcl_cs_timed_wait_1(void *rcl_arg)
// CHECK-NEXT: {
// CHECK-NEXT:     struct rcl_cs_timed_wait_1_ctx *rcl_ctx = (struct rcl_cs_timed_wait_1_ctx *)rcl_arg;
// CHECK-NEXT:     const struct timespec *deadline = rcl_ctx->deadline;
// CHECK-NEXT:     waiting = 1;
// CHECK-NEXT:     while (!ready && (*rcl_ctx->rc) != ETIMEDOUT)
// CHECK-NEXT:         (*rcl_ctx->rc) = rcl_cond_timedwait(&cv, &m, deadline);
// CHECK-NEXT:     waiting = 0;
// CHECK-NEXT:     return 0;
// CHECK-NEXT: }
// CHECK: static int timed_wait(const struct timespec *deadline)
// CHECK: struct rcl_cs_timed_wait_1_ctx rcl_ctx = { .rc = &rc, .deadline = deadline };
// CHECK-NEXT: rcl_delegate_ctx(&m, rcl_cs_timed_wait_1, &rcl_ctx, sizeof rcl_ctx);
static int timed_wait(const struct timespec *deadline)
{
    int rc = 0;
    pthread_mutex_lock(&m);
    waiting = 1;
    while (!ready && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&cv, &m, deadline);
    waiting = 0;
    pthread_mutex_unlock(&m);
    return rc;
}

// CHECK: static RCL_SECTION_INLINE int rcl_cs_clock_wait_1(void *rcl_arg)
// CHECK:     clockid_t clock = rcl_ctx->clock;
// CHECK:         (*rcl_ctx->rc) = rcl_cond_clockwait(&cv, &m, clock, deadline);
// CHECK: rcl_delegate_ctx(&m, rcl_cs_clock_wait_1, &rcl_ctx, sizeof rcl_ctx);
static int clock_wait(clockid_t clock, const struct timespec *deadline)
{
    int rc = 0;
    pthread_mutex_lock(&m);
    waiting = 1;
    while (!ready && rc != ETIMEDOUT)
        rc = pthread_cond_clockwait(&cv, &m, clock, deadline);
    waiting = 0;
    pthread_mutex_unlock(&m);
    return rc;
}

// CHECK: static RCL_SECTION_INLINE int rcl_cs_signaller_1(void *rcl_arg)
// CHECK:     if (waiting) {
// CHECK-NEXT:         ready = 1;
// CHECK-NEXT:         pthread_cond_signal(&cv);
// CHECK-NEXT:         (*rcl_ctx->done) = 1;
// CHECK-NEXT:     }
// CHECK-NEXT:     return 0;
// SUMMARY-NOT: cannot convert
// SUMMARY: rcl: summary: 4 converted, 0 refused
static void *signaller(void *arg)
{
    (void)arg;
    for (;;) {
        int done = 0;
        pthread_mutex_lock(&m);
        if (waiting) {
            ready = 1;
            pthread_cond_signal(&cv);
            done = 1;
        }
        pthread_mutex_unlock(&m);
        if (done) return NULL;
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
}

static void reset(void)
{
    pthread_mutex_lock(&m);
    ready = 0;
    pthread_mutex_unlock(&m);
}

static struct timespec in(clockid_t clock, long ms)
{
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static const char *result(int rc)
{
    return rc == 0 ? "0" : rc == ETIMEDOUT ? "ETIMEDOUT" : "other";
}

// OUT: timedwait, nobody signals: ETIMEDOUT
// OUT-NEXT: clockwait, nobody signals: ETIMEDOUT
// OUT-NEXT: timedwait, signalled: 0
// OUT-NEXT: clockwait, signalled: 0
int main(void)
{
    pthread_t t;
    struct timespec d = in(CLOCK_REALTIME, 20);
    printf("timedwait, nobody signals: %s\n", result(timed_wait(&d)));
    d = in(CLOCK_MONOTONIC, 20);
    printf("clockwait, nobody signals: %s\n", result(clock_wait(CLOCK_MONOTONIC, &d)));

    pthread_create(&t, NULL, signaller, NULL);
    d = in(CLOCK_REALTIME, 20000);
    printf("timedwait, signalled: %s\n", result(timed_wait(&d)));
    pthread_join(t, NULL);
    reset();
    pthread_create(&t, NULL, signaller, NULL);
    d = in(CLOCK_MONOTONIC, 20000);
    printf("clockwait, signalled: %s\n", result(clock_wait(CLOCK_MONOTONIC, &d)));
    pthread_join(t, NULL);
    return 0;
}
