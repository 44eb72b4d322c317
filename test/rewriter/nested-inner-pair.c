// Case 7: a pair of another lock fully nested in the section stays inside the outlined body
// (the server takes it); the inner section is reported as kept inside.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER, inner = PTHREAD_MUTEX_INITIALIZER;
static int a, b;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_both_1(void *rcl_arg)
// CHECK:     a++;
// CHECK-NEXT:     pthread_mutex_lock(&inner);
// CHECK-NEXT:     b += a;
// CHECK-NEXT:     pthread_mutex_unlock(&inner);
// CHECK-NEXT:     return 0;
// CHECK: rcl_delegate(&outer, rcl_cs_both_1, (void *)0);
static void both(void)
{
    pthread_mutex_lock(&outer);
    a++;
    pthread_mutex_lock(&inner);
    b += a;
    pthread_mutex_unlock(&inner);
    pthread_mutex_unlock(&outer);
}

int main(void)
{
    both();
    both();
    printf("%d %d\n", a, b);
    return 0;
}
// SUMMARY: lock 'inner': 0 converted, 0 refused, 1 kept inside a converted section
// SUMMARY: lock 'outer': 1 converted, 0 refused
