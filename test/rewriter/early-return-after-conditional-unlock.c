// Case 1: an unlock inside a branch followed by a return is an exit of the section; the
// return stays in the caller, selected by the exit number.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

struct queue {
    pthread_mutex_t m;
    int n;
    int items[16];
};

// CHECK: #include <rcl/rcl.h>
// CHECK: struct rcl_cs_pop_1_ctx {
// CHECK-NEXT:     struct queue *q;
// CHECK-NEXT:     int *it;
// CHECK-NEXT: };
// CHECK: static RCL_SECTION_INLINE int rcl_cs_pop_1(void *rcl_arg)
// CHECK-NEXT: {
// CHECK-NEXT:     struct rcl_cs_pop_1_ctx *rcl_ctx = (struct rcl_cs_pop_1_ctx *)rcl_arg;
// CHECK-NEXT:     struct queue *q = rcl_ctx->q;
// CHECK-NEXT:     if (q->n == 0) {
// CHECK-NEXT:         return 1;
// CHECK-NEXT:     }
// CHECK-NEXT:     (*rcl_ctx->it) = q->items[--q->n];
// CHECK-NEXT:     return 0;
// CHECK-NEXT: }
// CHECK: static int pop(struct queue *q)
// CHECK: struct rcl_cs_pop_1_ctx rcl_ctx = { .q = q, .it = &it };
// CHECK-NEXT: if (rcl_delegate_ctx(&q->m, rcl_cs_pop_1, &rcl_ctx, sizeof rcl_ctx) == 1) {
// CHECK-NEXT:     return -1;
// CHECK-NEXT: }
// CHECK-NOT: pthread_mutex_lock
// CHECK-NOT: pthread_mutex_unlock
// SUMMARY: lock 'q->m': 1 converted, 0 refused
static int pop(struct queue *q)
{
    int it;
    pthread_mutex_lock(&q->m);
    if (q->n == 0) {
        pthread_mutex_unlock(&q->m);
        return -1;
    }
    it = q->items[--q->n];
    pthread_mutex_unlock(&q->m);
    return it;
}

int main(void)
{
    struct queue q = {PTHREAD_MUTEX_INITIALIZER, 3, {5, 7, 9}};
    for (int i = 0; i < 5; i++)
        printf("%d\n", pop(&q));
    return 0;
}
