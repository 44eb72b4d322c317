// Case 18: `register` variables that a section writes (shared/cases/
// register_variable_in_section.c). Reached through the context by address (`.i = &i`), which C
// forbids for a register variable: the output did not compile. The rewritten file drops the
// `register` of each such variable (a parameter too, also in a K&R definition); one only read
// is copied by value and keeps it. Same output in every RCL_MODE.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags -Wno-deprecated-non-prototype > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: %cc -Wno-deprecated-non-prototype %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -Wno-deprecated-non-prototype %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long count;

// CHECK: static void add(long *c, register int k)
// CHECK-NEXT: {
// CHECK-NEXT: int i;
// CHECK-NEXT: register int unused = 0;
// CHECK: .i = &i, .k = k
static void add(long *c, register int k)
{
    register int i;
    register int unused = 0;
    pthread_mutex_lock(&m);
    for (i = 0; i < k; i++)
        (*c)++;
    pthread_mutex_unlock(&m);
    (void)unused;
}

// CHECK: static long drain(n, p)
// CHECK-NEXT: int n;
// CHECK: .n = &n
static long drain(n, p)
    register int n;
    long *p;
{
    pthread_mutex_lock(&m);
    while (n-- > 0)
        *p += n;
    pthread_mutex_unlock(&m);
    return *p;
}

int main(void)
{
    for (int k = 0; k < 10; k++)
        add(&count, k);
    printf("%ld %ld\n", count, drain(4, &count));
    return 0;
}
