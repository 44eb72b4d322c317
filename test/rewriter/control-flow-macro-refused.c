// Case 5: macros that hide control flow around the lock are refused, file byte-identical.
// (`LOCK_OR_FAIL(m)`, `if (pthread_mutex_lock(m) != 0) return -1`, converts: its `return` runs
// only when the lock fails, which a delegated lock does not: lock-result-checked.c.)
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

#define UNLOCK_RETURN(m, v) do { pthread_mutex_unlock(m); return (v); } while (0)
#define LOCK_AND_COUNT(m) pthread_mutex_lock(m); v++

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;

int b(void)
{
    pthread_mutex_lock(&m);
    // CHECK: control-flow-macro-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: the lock is still held at the end of its block
    v++;
    UNLOCK_RETURN(&m, v);
}

int c(void)
{
    // A macro that hides another statement next to the lock: never dropped, refused.
    LOCK_AND_COUNT(&m);
    // CHECK: control-flow-macro-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: the critical section is written inside a macro expansion
    v++;
    pthread_mutex_unlock(&m);
    return v;
}
