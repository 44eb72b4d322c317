// Case 8: a condition wait inside the section is refused until the runtime can block inside
// a delegated section (it stays correct in mixed mode); a wait on another mutex is refused
// with its own reason. File byte-identical.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, other = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, v;

void consume(void)
{
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&cv, &m);
    // CHECK: condition-wait-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: contains a condition wait; not yet supported by the runtime
    ready = 0;
    v++;
    pthread_mutex_unlock(&m);
}

void wrong_mutex(void)
{
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&cv, &other);
    // CHECK: condition-wait-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: waits on a condition with a different mutex than the section's
    pthread_mutex_unlock(&m);
}

static void wait_ready(void)
{
    while (!ready)
        pthread_cond_wait(&cv, &m);
}

static void helper(void)
{
    wait_ready();
}

void hidden_wait(void)
{
    pthread_mutex_lock(&m);
    helper();
    // CHECK: condition-wait-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: calls 'helper', which waits on a condition variable; not yet supported by the runtime
    v++;
    pthread_mutex_unlock(&m);
}
// CHECK: lock 'm': 0 converted, 3 refused
