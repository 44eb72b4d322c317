// A lock statement carrying a case label starts a section; the label stays in place. A
// declaration that would have to be hoisted after the label is refused (C before C23 does
// not allow a declaration right after a label).
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_apply_1(void *rcl_arg)
// CHECK:     v += 10;
// CHECK: case 1:
// CHECK-NEXT: {
// CHECK-NEXT:     rcl_delegate(&m, rcl_cs_apply_1, (void *)0);
// CHECK-NEXT: }
// CHECK-NEXT: break;
// CHECK: case 2:
// CHECK-NEXT: pthread_mutex_lock(&m);
static int apply(int op)
{
    switch (op) {
    case 1:
        pthread_mutex_lock(&m);
        v += 10;
        pthread_mutex_unlock(&m);
        break;
    case 2:
        pthread_mutex_lock(&m);
        int w = v;
        // DIAG: lock-after-case-label.c:[[@LINE-1]]:13: rcl: cannot convert critical section: a declaration would have to move after the lock's label
        pthread_mutex_unlock(&m);
        return w;
    }
    return v;
}

int main(void)
{
    printf("%d %d %d\n", apply(1), apply(2), apply(3));
    return 0;
}
