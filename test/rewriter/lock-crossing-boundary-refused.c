// Case 7: another lock taken inside and released after, or taken before and released
// inside, or the same lock released and re-taken inside: refused, file byte-identical.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static int v, busy;

void hand_over_hand(void)
{
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    // CHECK-DAG: lock-crossing-boundary-refused.c:[[@LINE-1]]:24: rcl: cannot convert critical section: another lock ('b') is taken inside the critical section and released after it
    v++;
    pthread_mutex_unlock(&a);
    // CHECK-DAG: lock-crossing-boundary-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: another lock, taken before the critical section, is released inside it
    v++;
    pthread_mutex_unlock(&b);
}

void unlock_sleep_relock(void)
{
    pthread_mutex_lock(&a);
    while (busy) {
        pthread_mutex_unlock(&a);
        usleep(10);
        pthread_mutex_lock(&a);
        // CHECK-DAG: lock-crossing-boundary-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: the lock is released and taken again in each iteration of the loop at line [[@LINE-4]] (a worker loop
    }
// The section from line 26 holds the same loop: refused with the same reason, at its lock.
// CHECK-DAG: lock-crossing-boundary-refused.c:[[@LINE-8]]:5: rcl: cannot convert critical section: the lock is released and taken again in each iteration of the loop at line [[@LINE-7]] (a worker loop
    v++;
    pthread_mutex_unlock(&a);
}
// The inner re-lock is a lock statement of its own, held past its block: a third refusal.
// CHECK-DAG: lock 'a': 0 converted, 3 refused
// CHECK-DAG: lock 'b': 0 converted, 1 refused
