// A lock taken in a branch of an `if` and released after it, as APR's lock tests take theirs
// (`if (timeout) timedlock; else lock; counter++; unlock;`), an `else if` chain choosing a
// trylock or a lock, and an unlock-work-relock under a condition (no `else`). No block holds
// one lock-to-unlock stretch. rcl-cc's copy (--resolve-copy) writes the statements up to the
// unlock into each branch (BranchJoin.h); the branch's own section then converts (the timed
// lock's as a timed section, delegated with its deadline), and a trylock stays as written. Every line keeps its number. `rcl convert` (no
// --resolve-copy) refuses them and says that the copy joins them. A tail that declares what
// the block reads after the unlock, and a branch that declares a name the tail spells, are
// not joined. The converted program prints what the original prints in every mode.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags 2>&1 >/dev/null | FileCheck %s --check-prefix=KEPT
// RUN: %rcl-rewrite --all --resolve-copy --line-directives %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s < %t.c
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define ITERS 2000
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *apr_style(void *timed)
{
    struct timespec far;
    int i;
    for (i = 0; i < ITERS; i++) {
        if (timed) {
            clock_gettime(CLOCK_REALTIME, &far);
            far.tv_sec += 60;
            pthread_mutex_timedlock(&m, &far);
        }
        else {
            pthread_mutex_lock(&m);
        }
        counter++;
        pthread_mutex_unlock(&m);
    }
    return NULL;
}
// KEPT: branch-join.c:[[# @LINE-7]]:13: rcl: cannot convert critical section: the lock is still held at the end of its block (released in another block or function); it is taken in a branch of an `if` and released after it: rcl-cc and `rcl build` write the statements up to the unlock into each branch in their copy (`rcl convert` does not); left as is, safe in mixed mode
// The tail, written into the timed branch, is a timed section: its lock statement stays with
// the call made the timed delegation, and its statements stay as written (on the lines they
// had) for when the lock is not had by the deadline:
// CHECK: { (rcl_timed_err = rcl_delegate_timed(&m, rcl_cs_apr_style_1, (void *)0, 0, CLOCK_REALTIME, &far, &rcl_timed_result)); } if (rcl_timed_err != 0) {
// CHECK-NEXT: #line [[# @LINE-15]] "{{.*}}branch-join.c"
// CHECK: counter++;
// CHECK-NEXT: pthread_mutex_unlock(&m); } }
// CHECK: rcl_delegate(&m, rcl_cs_apr_style_2

static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static long total2, extra2;

static int chain(int mode, int v)
{
    if (mode == 1) {
        if (pthread_mutex_trylock(&m2) != 0)
            pthread_mutex_lock(&m2);
    } else if (mode == 2) {
        pthread_mutex_lock(&m2);
    } else {
        pthread_mutex_lock(&m2);
        extra2 += v;
    }
    total2 += v;
    pthread_mutex_unlock(&m2);
    return 0;
}
// KEPT: branch-join.c:[[# @LINE-9]]:9: rcl: cannot convert critical section: {{.*}}it is taken in a branch of an `if`
// KEPT: branch-join.c:[[# @LINE-8]]:9: rcl: cannot convert critical section: {{.*}}it is taken in a branch of an `if`

static void *chained(void *arg)
{
    int i;
    for (i = 0; i < ITERS; i++)
        chain(i % 3, i + (int)(long)arg);
    return NULL;
}

// Unlock, work, relock under a condition: the relock's section is taken in the `if` and released
// after it, which a join (an `else` holding the tail) would make a section. But the copy runs
// the stretch between the unlock and the relock on the caller's side instead (UnlockWindow.h),
// and the whole section converts, both of its stretches delegated (the join, whose edits would
// meet the window's, is left out); `leaves` in unlock-window.c is joined.
static pthread_mutex_t m3 = PTHREAD_MUTEX_INITIALIZER;
static long t3, worked3;

static long work(long x) { return x * 3 + 1; }

static void *relock(void *arg)
{
    long w;
    int i;
    (void)arg;
    for (i = 0; i < ITERS; i++) {
        pthread_mutex_lock(&m3);
        if (i % 4 == 0) {
            pthread_mutex_unlock(&m3);
            w = work(i);
            pthread_mutex_lock(&m3);
            worked3 += w;
        }
        t3 += i;
        pthread_mutex_unlock(&m3);
    }
    return NULL;
}
// CHECK: rcl_delegate_ctx(&m3, rcl_cs_relock_1
// CHECK: goto rcl_window_{{[0-9]+}}_1;
// CHECK: if (0) { rcl_window_{{[0-9]+}}_1: {
// CHECK-NEXT: #line [[# @LINE-13]] "{{.*}}branch-join.c"
// CHECK: w = work(i);

// The tail has an exit that unlocks and returns, and ends with a checked unlock whose result
// is stored: the section ends there (the finder's rule), each branch's converts.
static pthread_mutex_t m5 = PTHREAD_MUTEX_INITIALIZER;
static long t5, left5;

static int checked(int v)
{
    int rc;
    if (v & 1) {
        pthread_mutex_lock(&m5);
        t5 += 2;
    } else {
        pthread_mutex_lock(&m5);
    }
    if (v % 7 == 0) {
        left5++;
        pthread_mutex_unlock(&m5);
        return -1;
    }
    t5 += v;
    rc = pthread_mutex_unlock(&m5);
    if (rc != 0)
        return -2;
    return rc;
}
// CHECK: rcl_delegate_ctx(&m5, rcl_cs_checked_1
// CHECK: rcl_delegate_ctx(&m5, rcl_cs_checked_2

// Not joined: the tail declares what the block reads after the unlock; a branch declares a
// name the tail spells.
static pthread_mutex_t m4 = PTHREAD_MUTEX_INITIALIZER;
static long t4;

static long kept(int flag)
{
    long other = 1;
    if (flag) {
        pthread_mutex_lock(&m4);
    } else {
        pthread_mutex_lock(&m4);
    }
    long seen = ++t4;
    pthread_mutex_unlock(&m4);
    if (flag) {
        long other = 2;
        pthread_mutex_lock(&m4);
        (void)other;
    } else {
        pthread_mutex_lock(&m4);
    }
    t4 += other;
    pthread_mutex_unlock(&m4);
    if (flag) {
        pthread_mutex_lock(&m4);
    } else {
        pthread_mutex_lock(&m4);
    }
    static long calls;
    t4 += ++calls;
    pthread_mutex_unlock(&m4);
    return seen;
}
// KEPT: branch-join.c:[[# @LINE-25]]:9: rcl: cannot convert critical section: the lock is still held at the end of its block (released in another block or function); left as is, safe in mixed mode
// KEPT: branch-join.c:[[# @LINE-24]]:9: rcl: cannot convert critical section: the lock is still held at the end of its block (released in another block or function); left as is, safe in mixed mode
// KEPT: branch-join.c:[[# @LINE-19]]:9: rcl: cannot convert critical section: the lock is still held at the end of its block (released in another block or function); left as is, safe in mixed mode
// KEPT: branch-join.c:[[# @LINE-17]]:9: rcl: cannot convert critical section: the lock is still held at the end of its block (released in another block or function); left as is, safe in mixed mode
// A static local in the tail (written twice, it would be two variables):
// KEPT: branch-join.c:[[# @LINE-14]]:9: rcl: cannot convert critical section: the lock is still held at the end of its block (released in another block or function); left as is, safe in mixed mode
// KEPT: branch-join.c:[[# @LINE-13]]:9: rcl: cannot convert critical section: the lock is still held at the end of its block (released in another block or function); left as is, safe in mixed mode
// (relock's relock counts as a section of its own, converted with its section)
// ERR: rcl: summary: 8 converted, 8 refused

int main(void)
{
    pthread_t t[6];
    long sum = 0;
    int i;
    pthread_create(&t[0], NULL, apr_style, NULL);
    pthread_create(&t[1], NULL, apr_style, (void *)1);
    pthread_create(&t[2], NULL, chained, (void *)0);
    pthread_create(&t[3], NULL, chained, (void *)7);
    pthread_create(&t[4], NULL, relock, NULL);
    pthread_create(&t[5], NULL, relock, NULL);
    for (i = 0; i < 6; i++)
        pthread_join(t[i], NULL);
    for (i = 0; i < 100; i++)
        sum += kept(i & 1) + checked(i);
    printf("counter %ld total2 %ld extra2 %ld t3 %ld worked3 %ld t4 %ld t5 %ld left5 %ld sum "
           "%ld\n", counter, total2, extra2, t3, worked3, t4, t5, left5, sum);
    return 0;
}
// STATS: rcl: mode delegate
// The joined sections run on the server: apr_style's 2,000 untimed ones and its 2,000 timed
// ones (none times out: nothing else holds the lock for a minute), chain's 2 x 1,333
// of modes 0 and 2, relock's 2 x 2,000 sections and their 2 x 500 stretches after the relock
// (UnlockWindow.h), checked's 100.
// STATS: rcl: server 0 (cpu {{[0-9]+}}): 11766 sections served
// STATS: rcl: server 0: timed lock calls: 2000, 0 of them timed out
