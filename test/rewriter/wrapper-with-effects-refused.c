// Declared wrappers that do more than lock or unlock, where that cannot be kept: a lock wrapper
// that counts before it locks (its statements would run on the server, before the section,
// with the mutex not yet held), an unlock wrapper whose statements before the unlock return
// early, and one defined after the function that uses it (its copy goes before that function).
// Refused; byte-identical. An unlock wrapper's effects are otherwise kept:
// unlock-wrapper-with-effects.c.
// RUN: %rcl-rewrite --all --lock-fn=counted_lock --unlock-fn=plain_unlock --lock-fn=plain_lock --unlock-fn=early_unlock --lock-fn=plain_lock2 --unlock-fn=late_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long value, work, locks;
void counted_lock(pthread_mutex_t *l) { locks++; pthread_mutex_lock(l); }
void plain_unlock(pthread_mutex_t *l) { pthread_mutex_unlock(l); }
void plain_lock(pthread_mutex_t *l) { pthread_mutex_lock(l); }
void early_unlock(pthread_mutex_t *l, long by) { if (by == 0) return; value += by; pthread_mutex_unlock(l); }
void plain_lock2(pthread_mutex_t *l) { pthread_mutex_lock(l); }
void late_unlock(pthread_mutex_t *l, long by);

void step(void)
{
    counted_lock(&m);
    // CHECK: wrapper-with-effects-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: lock wrapper 'counted_lock' does more than lock its first argument
    work++;
    plain_unlock(&m);
    plain_lock(&m);
    work++;
    early_unlock(&m, 1);
    // CHECK: wrapper-with-effects-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: unlock wrapper 'early_unlock' does more than unlock its first argument, and what it does before the unlock returns or jumps
    plain_lock2(&m);
    work++;
    late_unlock(&m, 1);
    // CHECK: wrapper-with-effects-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: unlock wrapper 'late_unlock' does more than unlock its first argument, and its definition is not written in this file before 'step'
}

void late_unlock(pthread_mutex_t *l, long by) { value += by; pthread_mutex_unlock(l); }
// CHECK-NOT: cannot convert
// CHECK: rcl: summary: 0 converted, 3 refused
