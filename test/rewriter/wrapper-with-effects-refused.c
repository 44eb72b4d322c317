// Declared wrappers that do more than lock or unlock, where that cannot be kept: a lock wrapper
// that records its thread's scheduling policy after it locks (the server's, on the server; a
// wrapper that records pthread_self() converts: the server runs the section as its caller), an unlock
// wrapper whose statements before the unlock return early, and one defined after the function
// that uses it (its copy goes before that function). Refused; byte-identical. A wrapper's other
// statements are otherwise kept: lock-wrapper-with-effects.c, unlock-wrapper-with-effects.c.
// RUN: %rcl-rewrite --all --lock-fn=owned_lock --unlock-fn=plain_unlock --lock-fn=plain_lock --unlock-fn=early_unlock --lock-fn=plain_lock2 --unlock-fn=late_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long value, work;
static int owner;
void owned_lock(pthread_mutex_t *l) { pthread_mutex_lock(l); owner = sched_getscheduler(0); }
void plain_unlock(pthread_mutex_t *l) { pthread_mutex_unlock(l); }
void plain_lock(pthread_mutex_t *l) { pthread_mutex_lock(l); }
void early_unlock(pthread_mutex_t *l, long by) { if (by == 0) return; value += by; pthread_mutex_unlock(l); }
void plain_lock2(pthread_mutex_t *l) { pthread_mutex_lock(l); }
void late_unlock(pthread_mutex_t *l, long by);

void step(void)
{
    owned_lock(&m);
    // CHECK: wrapper-with-effects-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: lock wrapper 'owned_lock', after it locks, acts on the calling thread (sched_getscheduler), which would be the server
    work++;
    plain_unlock(&m);
    plain_lock(&m);
    work++;
    early_unlock(&m, 1);
    // CHECK: wrapper-with-effects-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: unlock wrapper 'early_unlock' does more than unlock its first argument, and it returns early (line {{[0-9]+}}) and does other things besides the unlock
    plain_lock2(&m);
    work++;
    late_unlock(&m, 1);
    // CHECK: wrapper-with-effects-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: unlock wrapper 'late_unlock' does more than unlock its first argument, and its definition is not written in this file before 'step'
}

void late_unlock(pthread_mutex_t *l, long by) { value += by; pthread_mutex_unlock(l); }
// CHECK-NOT: cannot convert
// CHECK: rcl: summary: 0 converted, 3 refused
