// Case 3: the code after an unlock inside a branch (its tail) stays in the caller, selected
// by the exit number; the else branch's unlock is the plain exit 0.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int total;

// CHECK: struct rcl_cs_add_1_ctx {
// CHECK-NEXT:     int c;
// CHECK-NEXT:     int v;
// CHECK-NEXT: };
// CHECK: static RCL_SECTION_INLINE int rcl_cs_add_1(void *rcl_arg)
// CHECK:     int c = rcl_ctx->c;
// CHECK-NEXT:     int v = rcl_ctx->v;
// CHECK-NEXT:     if (c) {
// CHECK-NEXT:         total += v;
// CHECK-NEXT:         return 1;
// CHECK-NEXT:     } else
// CHECK-NEXT:         return 0;
// CHECK: if (rcl_delegate_ctx(&m, rcl_cs_add_1, &rcl_ctx, sizeof rcl_ctx) == 1) {
// CHECK-NEXT:     printf("added %d, total %d\n", v, total);
// CHECK-NEXT: }
// CHECK-NOT: printf("added
static void add(int c, int v)
{
    pthread_mutex_lock(&m);
    if (c) {
        total += v;
        pthread_mutex_unlock(&m);
        printf("added %d, total %d\n", v, total);
    } else
        pthread_mutex_unlock(&m);
}

int main(void)
{
    add(1, 4);
    add(0, 5);
    add(1, 6);
    printf("%d\n", total);
    return 0;
}
