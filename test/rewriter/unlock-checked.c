// Case 6/19: the unlock's result checked in the statement that releases the lock,
// `if (pthread_mutex_unlock(&m) != 0) abort();` or `if (pthread_mutex_unlock(&m)) ...;`
// (shared/cases/unlock_checked_with_abort.c). It releases the lock like a plain unlock: the
// whole statement ends the section (or is an exit) and, delegated, the unlock cannot fail, so
// the branch goes, with a note. Was refused as "the lock is still held at the end of its block".
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_add_1(void *rcl_arg)
// CHECK: total += k;
// CHECK-NEXT: return 0;
// CHECK-NEXT: }
// CHECK: static void add(int k)
// CHECK-NOT: abort
// CHECK: rcl_delegate_ctx(&m, rcl_cs_add_1, &rcl_ctx, sizeof rcl_ctx);
static void add(int k)
{
    if (pthread_mutex_lock(&m) != 0)
        abort();
    total += k;
    if (pthread_mutex_unlock(&m) != 0)
        abort();
}

// CHECK: static RCL_SECTION_INLINE int rcl_cs_sub_1(void *rcl_arg)
// CHECK: if (k > 150) {
// CHECK-NEXT: return 1;
// CHECK-NEXT: }
// CHECK: total -= k / 2;
// CHECK-NEXT: return 0;
// CHECK: static int sub(int k)
// CHECK: == 1) {
// CHECK-NEXT: return -1;
static int sub(int k)
{
    pthread_mutex_lock(&m);
    if (k > 150) {
        if (pthread_mutex_unlock(&m))
            abort();
        return -1;
    }
    total -= k / 2;
    if (pthread_mutex_unlock(&m))
        abort();
    return 0;
}

int main(void)
{
    int refused = 0;
    for (int k = 0; k < 200; k++) {
        add(k);
        refused += sub(k) != 0;
    }
    printf("%ld %d\n", total, refused);
    return 0;
}
// ERR-DAG: unlock-checked.c:30:9: rcl: note: converted critical section drops the check of pthread_mutex_lock's result
// ERR-DAG: unlock-checked.c:33:9: rcl: note: converted critical section drops the check of pthread_mutex_unlock's result ({{.*}}): a delegated unlock does not fail the way a plain one can (the runtime releases the mutex itself)
// ERR-DAG: rcl: summary: 2 converted, 0 refused
