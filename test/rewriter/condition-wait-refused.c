// Case 8, what is still refused: a wait on another mutex than the section's, and a wait
// written inside a function-like macro, whose definition the tool does not edit (renaming the
// call there would change every use of the macro). Both stay correct in mixed mode. The file
// is left byte-identical.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

#define WAIT_FOR(c, mu) pthread_cond_wait(&(c), &(mu))

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

void in_macro(void)
{
    pthread_mutex_lock(&m);
    while (!ready)
        WAIT_FOR(cv, m);
    // CHECK: condition-wait-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: the condition wait is written inside macro 'WAIT_FOR', whose definition the tool does not edit (write the call out, or call rcl_cond_wait in the macro)
    v++;
    pthread_mutex_unlock(&m);
}
// CHECK: lock 'm': 0 converted, 2 refused
