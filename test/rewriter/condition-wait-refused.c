// Case 8, what is still refused: a wait on another mutex than the section's. It stays correct
// in mixed mode. The file is left byte-identical. (A wait written inside a function-like
// macro converts: condition-wait-in-macro.c.)
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, other = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, v;

void wrong_mutex(void)
{
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&cv, &other);
    // CHECK: condition-wait-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: waits on a condition with a different mutex than the section's
    pthread_mutex_unlock(&m);
}

// CHECK: lock 'm': 0 converted, 1 refused
