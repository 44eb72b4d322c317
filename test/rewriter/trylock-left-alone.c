// Case 15: trylock and timedlock sections stay as they are (the server holds the real
// mutex while it runs delegated sections, so they remain mutually exclusive); they are
// reported with that reason, while the plain section of the same lock converts.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;

// CHECK: static int try_bump(void)
// CHECK-NEXT: {
// CHECK-NEXT:     if (pthread_mutex_trylock(&m) == 0) {
// CHECK-NEXT:         v++;
// CHECK-NEXT:         pthread_mutex_unlock(&m);
static int try_bump(void)
{
    if (pthread_mutex_trylock(&m) == 0) {
        // DIAG: trylock-left-alone.c:[[@LINE-1]]:9: rcl: cannot convert critical section: pthread_mutex_trylock section: left as is
        v++;
        pthread_mutex_unlock(&m);
        return 1;
    }
    return 0;
}

static int timed_bump(void)
{
    struct timespec ts = {0, 0};
    if (pthread_mutex_timedlock(&m, &ts) == 0) {
        // DIAG: trylock-left-alone.c:[[@LINE-1]]:9: rcl: cannot convert critical section: pthread_mutex_timedlock section: left as is
        v++;
        pthread_mutex_unlock(&m);
        return 1;
    }
    return 0;
}

// CHECK: rcl_delegate(&m, rcl_cs_bump_1, (void *)0);
static void bump(void)
{
    pthread_mutex_lock(&m);
    v += 10;
    pthread_mutex_unlock(&m);
}

int main(void)
{
    /* The local sections first: right after a delegated section returns, the server may still
     * hold the mutex for a few nanoseconds (docs/runtime.md), and a trylock there may fail. */
    int t = try_bump();
    int d = timed_bump();
    bump();
    printf("%d %d %d\n", t, d, v);
    return 0;
}
// DIAG: lock 'm': 1 converted, 2 refused
