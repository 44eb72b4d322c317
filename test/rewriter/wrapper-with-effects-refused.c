// A declared wrapper that does more than lock or unlock its first argument: an unlock wrapper
// that updates a value and broadcasts before it unlocks (/work/shared/cases/
// unlock_wrapper_with_effects.c: the whole call became the end of the section, its effects
// vanished), a lock wrapper that counts. Refused; byte-identical. A wrapper that only locks or
// unlocks converts (lock-macros-and-wrappers.c).
// RUN: %rcl-rewrite --all --lock-fn=possess --unlock-fn=twist --lock-fn=counted_lock --unlock-fn=plain_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static long value, work, locks;
void possess(pthread_mutex_t *l) { pthread_mutex_lock(l); }
void twist(pthread_mutex_t *l, long by) { value += by; pthread_cond_broadcast(&c); pthread_mutex_unlock(l); }
void counted_lock(pthread_mutex_t *l) { locks++; pthread_mutex_lock(l); }
void plain_unlock(pthread_mutex_t *l) { pthread_mutex_unlock(l); }

void step(void)
{
    possess(&m);
    work++;
    twist(&m, +1);
    // CHECK: wrapper-with-effects-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: unlock wrapper 'twist' does more than unlock its first argument
    counted_lock(&m);
    // CHECK: wrapper-with-effects-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: lock wrapper 'counted_lock' does more than lock its first argument
    work++;
    plain_unlock(&m);
}
// CHECK-NOT: cannot convert
// CHECK: rcl: summary: 0 converted, 2 refused
