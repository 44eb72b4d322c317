// A declared lock wrapper whose first parameter is not the pthread_mutex_t * it locks
// (/work/shared/cases/wrapper_not_a_mutex.c: delegated on the wrapper's struct, whatever bytes
// start it). Refused, with or without the wrapper's definition in the file; byte-identical.
// RUN: %rcl-rewrite --all --lock-fn=lk_lock --unlock-fn=lk_unlock --lock-fn=ext_lock --unlock-fn=ext_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
struct lk { long value; pthread_mutex_t mutex; };
void lk_lock(struct lk *l) { pthread_mutex_lock(&l->mutex); }
void lk_unlock(struct lk *l) { pthread_mutex_unlock(&l->mutex); }
void ext_lock(struct lk *l);
void ext_unlock(struct lk *l);
static struct lk L = { 0, PTHREAD_MUTEX_INITIALIZER };
static long counter, seen;

void work(void)
{
    lk_lock(&L);
    // CHECK: wrapper-not-a-mutex-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: lock wrapper 'lk_lock' does not take the pthread_mutex_t * it locks as its first parameter
    seen |= L.value;
    counter++;
    lk_unlock(&L);
    ext_lock(&L);
    // CHECK: wrapper-not-a-mutex-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: lock wrapper 'ext_lock' does not take the pthread_mutex_t * it locks as its first parameter
    counter++;
    ext_unlock(&L);
}
// CHECK-NOT: cannot convert
// CHECK: rcl: summary: 0 converted, 2 refused
