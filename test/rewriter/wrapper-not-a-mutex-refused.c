// A declared lock wrapper whose first parameter is not the pthread_mutex_t * it locks, and whose
// definition is not in the translation unit (/work/shared/cases/wrapper_not_a_mutex.c delegated
// on the wrapper's struct, whatever bytes start it), or whose definition reaches the mutex from
// something else than its first parameter alone, or through a table declared after the
// function (the expression is evaluated at the call site). Refused; byte-identical. (With the definition
// in the file the mutex is found through it: wrapper-mutex-through-body.c.)
// RUN: %rcl-rewrite --all --lock-fn=ext_lock --unlock-fn=ext_unlock --lock-fn=tbl_lock --unlock-fn=tbl_unlock --lock-fn=late_lock --unlock-fn=late_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
struct lk { long value; pthread_mutex_t mutex; };
void ext_lock(struct lk *l);
void ext_unlock(struct lk *l);
static pthread_mutex_t table[4] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
void tbl_lock(unsigned h, unsigned mask) { pthread_mutex_lock(&table[h & mask]); }
void tbl_unlock(unsigned h, unsigned mask) { pthread_mutex_unlock(&table[h & mask]); }
static struct lk L = { 0, PTHREAD_MUTEX_INITIALIZER };
static long counter;

void work(unsigned h)
{
    ext_lock(&L);
    // CHECK: wrapper-not-a-mutex-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: lock wrapper 'ext_lock' does not take the pthread_mutex_t * it locks as its first parameter, and its definition is not in this translation unit
    counter++;
    ext_unlock(&L);
    tbl_lock(h, 3);
    // CHECK: wrapper-not-a-mutex-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: lock wrapper 'tbl_lock' locks a mutex that is not reached from its first parameter alone, without side effects
    counter++;
    tbl_unlock(h, 3);
}

void late_lock(unsigned h);
void late_unlock(unsigned h);
void early(unsigned h)
{
    late_lock(h);
    // CHECK: wrapper-not-a-mutex-refused.c:[[@LINE-1]]:15: rcl: cannot convert critical section: the lock expression of the wrapper uses 'late_table', which is declared after the critical section
    counter++;
    late_unlock(h);
}
static pthread_mutex_t late_table[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
void late_lock(unsigned h) { pthread_mutex_lock(&late_table[h & 1]); }
void late_unlock(unsigned h) { pthread_mutex_unlock(&late_table[h & 1]); }
// CHECK-NOT: cannot convert
// CHECK: rcl: summary: 0 converted, 3 refused
