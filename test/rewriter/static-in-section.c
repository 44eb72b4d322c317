// Case 16: a static declared inside the section moves with the body when nothing after the
// section uses it; otherwise the section is refused.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int last;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_next_1(void *rcl_arg)
// CHECK-NEXT: {
// CHECK-NEXT:     (void)rcl_arg;
// CHECK-NEXT:     static int cur;
// CHECK-NEXT:     last = ++cur;
// CHECK-NEXT:     return 0;
// CHECK: static int next(void)
// CHECK-NOT: static int cur;
static int next(void)
{
    pthread_mutex_lock(&m);
    static int cur;
    last = ++cur;
    pthread_mutex_unlock(&m);
    return last;
}

static int leaks(void)
{
    pthread_mutex_lock(&m);
    static int used_after;
    // DIAG: static-in-section.c:[[@LINE-1]]:16: rcl: cannot convert critical section: static variable 'used_after' is used after the critical section
    used_after++;
    pthread_mutex_unlock(&m);
    return used_after;
}

int main(void)
{
    next();
    next();
    printf("%d %d\n", next(), leaks());
    return 0;
}
