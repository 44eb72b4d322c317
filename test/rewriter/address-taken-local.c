// Case 10: a local whose address is taken anywhere in the function is captured by pointer,
// even when the section only reads it (it may be written through the alias); the pointer
// itself, only read, is captured by value.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int shared = 41;

// CHECK: struct rcl_cs_alias_1_ctx {
// CHECK-NEXT:     int *p;
// CHECK-NEXT:     int *x;
// CHECK-NEXT: };
// CHECK:     int *p = rcl_ctx->p;
// CHECK-NEXT:     *p = shared + 1;
// CHECK-NEXT:     shared = (*rcl_ctx->x);
// CHECK: struct rcl_cs_alias_1_ctx rcl_ctx = { .p = p, .x = &x };
static int alias(void)
{
    int x = 0;
    int *p = &x;
    pthread_mutex_lock(&m);
    *p = shared + 1;
    shared = x;
    pthread_mutex_unlock(&m);
    return x;
}

int main(void)
{
    printf("%d %d\n", alias(), shared);
    return 0;
}
