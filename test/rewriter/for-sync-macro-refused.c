// A "synchronized block" macro: a for loop whose condition takes the lock (a void wrapper) in a
// comma expression and releases it on the next test. Refused with what it is, a lock taken
// inside an expression of that macro (/work/shared/cases/for_sync_macro.c: refused with "the
// result of my_lock is used", which was false: my_lock returns void). File byte-identical.
// RUN: %rcl-rewrite --all --lock-fn=my_lock --unlock-fn=my_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
static inline void my_lock(pthread_mutex_t *m) { pthread_mutex_lock(m); }
static inline void my_unlock(pthread_mutex_t *m) { pthread_mutex_unlock(m); }
#define my_sync(m) \
	for (unsigned i_ = 0; i_ ? (my_unlock(&(m)), 0) : (my_lock(&(m)), 1); i_ = 1) \
		for (unsigned j_ = 0; !j_; j_ = 1)
pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
long n;
void inc(void) { my_sync(mu) { n++; } }
// CHECK: for-sync-macro-refused.c:[[@LINE-1]]:18: rcl: cannot convert critical section: the lock is taken inside an expression (in macro 'my_sync'), not as a statement of a block
// CHECK-NOT: cannot convert
// CHECK: rcl: summary: 0 converted, 1 refused
