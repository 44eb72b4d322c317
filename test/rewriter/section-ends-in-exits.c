// A section whose last statement leaves on every path through exits (`if (c) { unlock; return
// 1; } else { unlock; return 2; }`) at the end of a non-void function: the outlined function
// never returns 0, so the call site's last exit is unconditional (`else`); with `else if` the
// converted function fell off its end for -Wreturn-type and did not compile under -Werror.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;

// CHECK: int two(int c)
// CHECK: int rcl_exit = rcl_delegate_ctx(&m, rcl_cs_two_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT: if (rcl_exit == 1) {
// CHECK-NEXT:     return 1;
// CHECK-NEXT: } else {
// CHECK-NEXT:     return 2;
// CHECK-NEXT: }
int two(int c)
{
    pthread_mutex_lock(&m);
    v++;
    if (c) {
        pthread_mutex_unlock(&m);
        return 1;
    } else {
        pthread_mutex_unlock(&m);
        return 2;
    }
}

// CHECK: int one(int c)
// CHECK: rcl_delegate_ctx(&m, rcl_cs_one_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT: return v + c;
int one(int c)
{
    pthread_mutex_lock(&m);
    v += c;
    {
        pthread_mutex_unlock(&m);
        return v + c;
    }
}

int main(void)
{
    printf("%d %d %d v=%d\n", two(0), two(1), one(3), v);
    return 0;
}
