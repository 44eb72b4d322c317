// Case 5/(d): an error macro that unlocks and leaves, `#define UNLOCK_RETURN(m, v) do {
// pthread_mutex_unlock(m); return (v); } while (0)` (or `goto`): the macro's use is an exit of
// the section, replaced by `return N;` in the outlined body, and the statements after the unlock
// run in the caller, printed from the macro's expansion (`return (v);`). At the end of a
// non-void function the last exit is unconditional, so -Wreturn-type sees no path falling off
// the function. Was refused ("the lock is still held at the end of its block").
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

#define UNLOCK_RETURN(m, v) do { pthread_mutex_unlock(m); return (v); } while (0)
#define UNLOCK_FAIL(m) do { pthread_mutex_unlock(m); goto fail; } while (0)

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v, failures;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_take_1(void *rcl_arg)
// CHECK: if (n < 0)
// CHECK-NEXT: return 1;
// CHECK: if (n > 100)
// CHECK-NEXT: return 2;
// CHECK: v += n;
// CHECK-NEXT: return 3;
// CHECK: int take(int n)
// CHECK: int rcl_exit = rcl_delegate_ctx(&m, rcl_cs_take_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT: if (rcl_exit == 1) {
// CHECK-NEXT:     return (-1);
// CHECK-NEXT: } else if (rcl_exit == 2) {
// CHECK-NEXT:     goto fail;
// CHECK-NEXT: } else {
// CHECK-NEXT:     return (v);
// CHECK-NEXT: }
int take(int n)
{
    pthread_mutex_lock(&m);
    if (n < 0)
        UNLOCK_RETURN(&m, -1);
    if (n > 100)
        UNLOCK_FAIL(&m);
    v += n;
    UNLOCK_RETURN(&m, v);
fail:
    failures++;
    return -2;
}
// ERR: rcl: summary: 1 converted, 0 refused

int main(void)
{
    printf("%d %d %d %d\n", take(5), take(-3), take(500), take(7));
    printf("v=%d failures=%d\n", v, failures);
    return 0;
}
