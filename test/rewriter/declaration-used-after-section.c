// Case 9: a declaration inside the section whose variable is used after it is hoisted
// before the call site; its initializer stays in the body as an assignment. A const one
// cannot be assigned later: refused.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

// CHECK: struct rcl_cs_bump_1_ctx {
// CHECK-NEXT:     int k;
// CHECK-NEXT:     long *v;
// CHECK-NEXT: };
// CHECK: static RCL_SECTION_INLINE int rcl_cs_bump_1(void *rcl_arg)
// CHECK:     int k = rcl_ctx->k;
// CHECK-NEXT:     (*rcl_ctx->v) = counter += k;
// CHECK-NEXT:     int unused_after = k * 2;
// CHECK-NEXT:     counter += unused_after;
// CHECK-NEXT:     return 0;
// CHECK: static long bump(int k)
// CHECK-NEXT: {
// CHECK-NEXT: long v;
// CHECK-NEXT: {
// CHECK-NEXT:     struct rcl_cs_bump_1_ctx rcl_ctx = { .k = k, .v = &v };
// CHECK-NEXT:     rcl_delegate_ctx(&lock, rcl_cs_bump_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT: }
// CHECK-NEXT: return v;
static long bump(int k)
{
    pthread_mutex_lock(&lock);
    long v = counter += k;
    int unused_after = k * 2;
    counter += unused_after;
    pthread_mutex_unlock(&lock);
    return v;
}

static long snapshot(void)
{
    pthread_mutex_lock(&lock);
    // DIAG: declaration-used-after-section.c:[[@LINE+1]]:16: rcl: cannot convert critical section: const variable 's' is used after the critical section
    const long s = counter;
    pthread_mutex_unlock(&lock);
    return s;
}

// A declaration with constant initializers moves whole, before the call site.
// CHECK: static RCL_SECTION_INLINE int rcl_cs_table_1(void *rcl_arg)
// CHECK-NOT: int t[3]
// CHECK:     (*rcl_ctx->t)[1] += (int)counter;
// CHECK: static int table(void)
// CHECK-NEXT: {
// CHECK-NEXT: int t[3] = {1, 2, 3}, n = 3;
// CHECK-NEXT: {
// CHECK-NEXT:     struct rcl_cs_table_1_ctx rcl_ctx = { .t = &t };
static int table(void)
{
    pthread_mutex_lock(&lock);
    int t[3] = {1, 2, 3}, n = 3;
    t[1] += (int)counter;
    pthread_mutex_unlock(&lock);
    return t[0] + t[1] + t[2] + n;
}

int main(void)
{
    printf("%d\n", table());
    printf("%ld\n", bump(3) + bump(4));
    printf("%ld\n", snapshot());
    return 0;
}
