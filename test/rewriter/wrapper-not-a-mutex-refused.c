// Declared wrappers whose mutex cannot be found safely are refused, the file left
// byte-identical: a wrapper whose definition reaches the mutex through a call, and one whose
// table is declared after the function (the expression is evaluated at the call site). A
// wrapper whose first parameter is not a pthread_mutex_t * and whose definition is in another
// translation unit (/work/shared/cases/wrapper_not_a_mutex.c delegated on the wrapper's struct,
// whatever bytes start it) is converted through the pair's getter instead:
// wrapper-in-another-file.test; with the definition in the file the mutex is found through it
// from any of its parameters: wrapper-mutex-through-body.c.
// RUN: %rcl-rewrite --all --lock-fn=call_lock --unlock-fn=call_unlock --lock-fn=late_lock --unlock-fn=late_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// Nothing else changes, but for late_lock/late_unlock's mutex getter (for other files' sections):
// RUN: sed '/^void late_unlock/s# extern __attribute__((visibility("default"))) pthread_mutex_t \*rcl_mutex_of_9late_lock11late_unlock(.*\*/$##' %t.c | cmp %s -
// RUN: FileCheck %s --check-prefix=GETTER < %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
static pthread_mutex_t table[4] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
pthread_mutex_t *lock_of(unsigned h);
pthread_mutex_t *lock_of(unsigned h) { return &table[h & 3]; }
void call_lock(unsigned h) { pthread_mutex_lock(lock_of(h)); }
void call_unlock(unsigned h) { pthread_mutex_unlock(lock_of(h)); }
static long counter;

void work(unsigned h)
{
    call_lock(h);
    // CHECK: wrapper-not-a-mutex-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: lock wrapper 'call_lock' locks a mutex that is not reached from its parameters and file-scope names alone, without calls or side effects
    counter++;
    call_unlock(h);
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
// GETTER-NOT: rcl_mutex_of_9call_lock
// GETTER: void late_unlock(unsigned h) { pthread_mutex_unlock(&late_table[h & 1]); } extern __attribute__((visibility("default"))) pthread_mutex_t *rcl_mutex_of_9late_lock11late_unlock(unsigned int h); extern __attribute__((visibility("default"))) const unsigned rcl_mutex_parameters_of_9late_lock11late_unlock; pthread_mutex_t *rcl_mutex_of_9late_lock11late_unlock(unsigned int h) { return &late_table[h & 1]; } const unsigned rcl_mutex_parameters_of_9late_lock11late_unlock = 1u; /* added by rcl-rewrite: the mutex of late_lock/late_unlock for other files' delegated sections (null: run under the wrappers), and the parameters it depends on */
// CHECK-NOT: cannot convert
// CHECK: rcl: summary: 0 converted, 2 refused
