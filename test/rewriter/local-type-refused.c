// Case 12: a type declared inside the function cannot be named by the outlined function:
// refused, file byte-identical.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int total;

int local_struct(void)
{
    struct pair { int a, b; } p = {1, 2};
    pthread_mutex_lock(&m);
    // CHECK: local-type-refused.c:[[@LINE+1]]:14: rcl: cannot convert critical section: 'p' has a type declared inside the function
    total += p.a + p.b;
    pthread_mutex_unlock(&m);
    return total;
}

int local_typedef(long x)
{
    typedef long counter_t;
    pthread_mutex_lock(&m);
    // CHECK: local-type-refused.c:[[@LINE+1]]:14: rcl: cannot convert critical section: uses a type declared inside the function
    total += (counter_t)x;
    pthread_mutex_unlock(&m);
    return total;
}
