// Case 9: a declaration inside the section whose variable is used after it is hoisted
// before the call site; its initializer stays in the body as an assignment. A const one is
// declared without its const (it is assigned once, in place); an initialised array is copied
// from a compound literal of its type, a brace-initialised struct assigned one; a variable of
// a nested block used in an exit's tail is hoisted too (it was refused as "declared inside the
// critical section, is used after an unlock"). Same output in every RCL_MODE.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
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

// CHECK: static RCL_SECTION_INLINE int rcl_cs_snapshot_1(void *rcl_arg)
// CHECK: (*rcl_ctx->s) = counter;
// CHECK: static long snapshot(void)
// CHECK-NEXT: {
// CHECK-NEXT: long s;
static long snapshot(void)
{
    pthread_mutex_lock(&lock);
    const long s = counter;
    pthread_mutex_unlock(&lock);
    return s;
}

struct pair { long a, b; };

// CHECK: static RCL_SECTION_INLINE int rcl_cs_copies_1(void *rcl_arg)
// CHECK: __builtin_memcpy((*rcl_ctx->w), (long[3]){counter, k, counter + k}, sizeof (*rcl_ctx->w));
// CHECK-NEXT: (*rcl_ctx->p) = (struct pair){k, counter};
// CHECK-NEXT: __builtin_memcpy((*rcl_ctx->name), (char[8]){(char)('a' + k), 'x'}, sizeof (*rcl_ctx->name));
// CHECK: static long copies(long k)
// CHECK-NEXT: {
// CHECK-NEXT: long w[3];
// CHECK-NEXT: struct pair p;
// CHECK-NEXT: char name[8];
static long copies(long k)
{
    pthread_mutex_lock(&lock);
    long w[3] = {counter, k, counter + k};
    struct pair p = {k, counter};
    char name[8] = {(char)('a' + k), 'x'};
    counter++;
    pthread_mutex_unlock(&lock);
    return w[0] + w[1] + w[2] + p.a + p.b + (long)name[0];
}

// A nested block's variable used in an exit's tail.
// CHECK: static RCL_SECTION_INLINE int rcl_cs_nested_1(void *rcl_arg)
// CHECK: (*rcl_ctx->seen) = counter;
// CHECK: static long nested(long k)
// CHECK-NEXT: {
// CHECK-NEXT: long seen;
static long nested(long k)
{
    pthread_mutex_lock(&lock);
    if (k > 1) {
        long seen = counter;
        counter -= k;
        pthread_mutex_unlock(&lock);
        return seen;
    }
    counter++;
    pthread_mutex_unlock(&lock);
    return -1;
}

// Refused: the nested variable's name is also another variable's of the function.
static long shadowed(long k)
{
    long seen = 1;
    pthread_mutex_lock(&lock);
    if (k > 1) {
        // DIAG: declaration-used-after-section.c:[[@LINE+1]]:14: rcl: cannot convert critical section: hoisting 'seen' would hide another variable of that name
        long seen = counter;
        pthread_mutex_unlock(&lock);
        return seen;
    }
    pthread_mutex_unlock(&lock);
    return seen;
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
    printf("%ld %ld %ld\n", copies(3), nested(2), nested(0));
    printf("%ld %ld\n", shadowed(2), shadowed(0));
    return 0;
}
