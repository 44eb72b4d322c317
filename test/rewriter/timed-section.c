// Sections entered with a timed lock (pthread_mutex_timedlock, pthread_mutex_clocklock,
// mtx_timedlock) are delegated with their deadline (rcl_delegate_timed): the lock statement
// stays where it is, with the call made the timed delegation, so that a check of its result
// (a branch that returns, a stored result tested next) runs on the real result; when the lock
// is not had by the deadline, the section's statements run in place, as the original's did.
// The program times its calls out while the main thread holds the lock, then takes it with
// nobody holding it: it prints the same in every mode. A declaration of the body used after
// it moves before the call site, and the body's own text assigns it (hoisted, on an
// error-checking mutex whose timed-out section runs unlocked, as the original's did). Refused:
// a body that reads what the lock statement sets, a lock statement that declares, a static in
// the body (a second copy would be a second variable), a timed lock written in a macro.
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
// And in rcl-cc's form, every line on its own number:
// RUN: %rcl-rewrite --all --line-directives %s -- %rcl_cflags > %t.lines.c 2>/dev/null
// RUN: %cc %t.lines.c -o %t.lines %rcl_libs && env RCL_MODE=delegate %t.lines > %t.lines.out
// RUN: diff %t.orig.out %t.lines.out
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static mtx_t cm;
static long counter;

static struct timespec in_ms(clockid_t clock, long ms) {
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_nsec += ms % 1000 * 1000000;
    t.tv_sec += ms / 1000 + t.tv_nsec / 1000000000;
    t.tv_nsec %= 1000000000;
    return t;
}

// CHECK-LABEL: static int bare(
// CHECK: (rcl_timed_err = rcl_delegate_timed(&m, rcl_cs_bare_1, &rcl_ctx, sizeof rcl_ctx, CLOCK_REALTIME, &ts, &rcl_timed_result));
// CHECK-NEXT: if (rcl_timed_err != 0) { /* rcl: the lock was not had: the statements as written */
// CHECK-NEXT: counter += n;
// CHECK-NEXT: pthread_mutex_unlock(&m);
static int bare(int n)
{
    struct timespec ts = in_ms(CLOCK_REALTIME, 2000);
    pthread_mutex_timedlock(&m, &ts);
    counter += n;
    pthread_mutex_unlock(&m);
    return 0;
}

// CHECK-LABEL: static int checked(
// CHECK: if ((rcl_timed_err = rcl_delegate_timed(&m, rcl_cs_checked_1, &rcl_ctx, sizeof rcl_ctx, CLOCK_REALTIME, &ts, &rcl_timed_result)) != 0) {
// CHECK-NEXT: printf("checked: timed out\n");
// CHECK-NEXT: return -1;
// CHECK-NEXT: }
// CHECK-NEXT: if (rcl_timed_err == 0) {
// CHECK-NEXT: if (rcl_timed_result == 1) {
// CHECK-NEXT: return 1;
// CHECK-NEXT: }
// CHECK-NEXT: } else { /* rcl: the lock was not had: the statements as written */
static int checked(int n, long ms)
{
    struct timespec ts = in_ms(CLOCK_REALTIME, ms);
    if (pthread_mutex_timedlock(&m, &ts) != 0) {
        printf("checked: timed out\n");
        return -1;
    }
    counter += n;
    if (counter > 1000) {
        pthread_mutex_unlock(&m);
        return 1;
    }
    pthread_mutex_unlock(&m);
    return 0;
}

// CHECK-LABEL: static int stored(
// CHECK: rc = (rcl_timed_err = rcl_delegate_timed(&m, rcl_cs_stored_1, &rcl_ctx, sizeof rcl_ctx, CLOCK_MONOTONIC, &ts, &rcl_timed_result));
// CHECK-NEXT: if (rc == ETIMEDOUT)
// CHECK-NEXT: return -2;
static int stored(int n, long ms)
{
    struct timespec ts = in_ms(CLOCK_MONOTONIC, ms);
    int rc;
    rc = pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &ts);
    if (rc == ETIMEDOUT)
        return -2;
    counter += n;
    pthread_mutex_unlock(&m);
    return rc;
}

// CHECK-LABEL: static int c11(
// CHECK: if ((rcl_timed_err = rcl_thrd_result(rcl_delegate_timed((pthread_mutex_t *)(&cm), rcl_cs_c11_1, &rcl_ctx, sizeof rcl_ctx, CLOCK_REALTIME, &ts, &rcl_timed_result))) != thrd_success)
static int c11(int n, long ms)
{
    struct timespec ts = in_ms(CLOCK_REALTIME, ms);
    if (mtx_timedlock(&cm, &ts) != thrd_success)
        return -3;
    counter += n;
    mtx_unlock(&cm);
    return 0;
}

static pthread_mutex_t em; /* error-checking: an unlock that does not own it fails */
static long counter2;

// CHECK-LABEL: static long hoisted(
// CHECK: /* rcl: declared in the critical section, used after it */ long before;
// CHECK: if (rcl_timed_err != 0) { /* rcl: the lock was not had: the statements as written */
// CHECK-NEXT: before = counter2;
static long hoisted(long ms)
{
    struct timespec ts = in_ms(CLOCK_REALTIME, ms);
    pthread_mutex_timedlock(&em, &ts);
    long before = counter2;
    counter2 += 1;
    pthread_mutex_unlock(&em);
    return before;
}

// ERR: timed-section.c:[[# @LINE+6]]:{{[0-9]+}}: rcl: cannot convert critical section: the critical section reads 'rc', which the pthread_mutex_timedlock statement sets: delegated, that is set only after the section ran
static int reads_result(void)
{
    struct timespec ts = in_ms(CLOCK_REALTIME, 2000);
    int rc;
    rc = pthread_mutex_timedlock(&m, &ts);
    counter += rc;
    pthread_mutex_unlock(&m);
    return rc;
}

// ERR: timed-section.c:[[# @LINE+4]]:{{[0-9]+}}: rcl: cannot convert critical section: the pthread_mutex_timedlock statement declares 'rc': a timed section's lock statement stays inside the block that replaces the section, where what follows cannot see it
static int declares(void)
{
    struct timespec ts = in_ms(CLOCK_REALTIME, 2000);
    int rc = pthread_mutex_timedlock(&m, &ts);
    counter++;
    pthread_mutex_unlock(&m);
    return rc;
}

// ERR: timed-section.c:[[# @LINE+6]]:{{[0-9]+}}: rcl: cannot convert critical section: the critical section declares the static 'calls'
static int with_static(void)
{
    struct timespec ts = in_ms(CLOCK_REALTIME, 2000);
    pthread_mutex_timedlock(&m, &ts);
    {
        static int calls;
        counter += ++calls;
    }
    pthread_mutex_unlock(&m);
    return 0;
}

#define TIMED_LOCK(mu, t) pthread_mutex_timedlock(mu, t)
// ERR: timed-section.c:[[# @LINE+4]]:{{[0-9]+}}: rcl: cannot convert critical section: pthread_mutex_timedlock is called inside a macro
static int in_macro(void)
{
    struct timespec ts = in_ms(CLOCK_REALTIME, 2000);
    TIMED_LOCK(&m, &ts);
    counter++;
    pthread_mutex_unlock(&m);
    return 0;
}

static void *contender(void *arg)
{
    (void)arg;
    printf("held: checked %d, stored %d, c11 %d\n", checked(1, 20), stored(1, 20), c11(1, 20));
    printf("held: hoisted %ld %ld\n", hoisted(20), hoisted(20));
    return NULL;
}

int main(void)
{
    mtx_init(&cm, mtx_timed);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&em, &a);
    /* The lock held by this thread: the timed calls of another thread time out. */
    pthread_mutex_lock(&m);
    pthread_mutex_lock(&em);
    mtx_lock(&cm);
    pthread_t t;
    pthread_create(&t, NULL, contender, NULL);
    pthread_join(t, NULL);
    mtx_unlock(&cm);
    pthread_mutex_unlock(&em);
    pthread_mutex_unlock(&m);
    printf("counter %ld, counter2 %ld\n", counter, counter2);
    /* Free: each is had. */
    long sum = 0;
    for (int i = 0; i < 100; i++)
        sum += bare(1) + checked(2, 2000) + stored(3, 2000) + c11(4, 2000) + reads_result() +
               declares() + with_static() + in_macro() + hoisted(2000);
    printf("free: sum %ld, counter %ld, counter2 %ld\n", sum, counter, counter2);
    return 0;
}
// (main's own three sections create a thread: refused)
// ERR: rcl: summary: 5 converted, 7 refused
// STATS: rcl: server 0: timed lock calls: {{[0-9]+}}, {{[1-9][0-9]*}} of them timed out
