// An exit unlock that is the first statement after a `case` or `default:` label converts: the
// label stays in the outlined body in front of `return N;`, the statements after the unlock run
// in the caller (/work/shared/cases/unlock_after_case_label.c: refused with "the lock is
// released inside an expression", which was false).
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out 2>&1
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out 2>&1
// RUN: env RCL_MODE=local %t.rcl > %t.local.out 2>&1
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int table[4] = {10, 20, 30, 40};

// CHECK: static RCL_SECTION_INLINE int rcl_cs_lookup_1(void *rcl_arg)
// CHECK:     switch (kind) {
// CHECK:     case 0:
// CHECK-NEXT:    (*rcl_ctx->v) = table[0];
// CHECK-NEXT:    break;
// CHECK-NEXT: case 2:
// CHECK-NEXT:    return 1;
// CHECK-NEXT: default:
// CHECK-NEXT:    return 2;
// CHECK-NEXT: }
// CHECK-NEXT: return 0;
// CHECK: static int lookup(int kind)
// CHECK:     int rcl_exit = rcl_delegate_ctx(&m, rcl_cs_lookup_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT: if (rcl_exit == 1) {
// CHECK-NEXT:     return -2;
// CHECK-NEXT: } else if (rcl_exit == 2) {
// CHECK-NEXT:     fprintf(stderr, "bad kind %d\n", kind);
// CHECK-NEXT:     return -1;
// CHECK-NEXT: }
// CHECK-NOT: pthread_mutex
static int lookup(int kind)
{
    int v;
    pthread_mutex_lock(&m);
    switch (kind) {
    case 0:
        v = table[0];
        break;
    case 2:
        pthread_mutex_unlock(&m);
        return -2;
    default:
        pthread_mutex_unlock(&m);
        fprintf(stderr, "bad kind %d\n", kind);
        return -1;
    }
    pthread_mutex_unlock(&m);
    return v;
}

// After a `return`, the next case label is reached by the switch with the lock held: it stays
// in the section.
// CHECK: static RCL_SECTION_INLINE int rcl_cs_bump_1(void *rcl_arg)
// CHECK:     case 1:
// CHECK-NEXT:    table[1]++;
// CHECK-NEXT:    return 1;
// CHECK-NEXT: case 2:
// CHECK-NEXT:    table[2]--;
// CHECK-NEXT: }
// CHECK-NEXT: return 0;
static int bump(int n)
{
    pthread_mutex_lock(&m);
    switch (n) {
    case 1:
        table[1]++;
        pthread_mutex_unlock(&m);
        return 1;
    case 2:
        table[2]--;
    }
    pthread_mutex_unlock(&m);
    return 0;
}

// SUMMARY: rcl: summary: 2 converted, 0 refused

int main(void)
{
    printf("%d %d %d\n", lookup(0), lookup(2), lookup(3));
    printf("%d %d %d\n", bump(1), bump(2), bump(3));
    printf("%d %d\n", table[1], table[2]);
    return 0;
}
