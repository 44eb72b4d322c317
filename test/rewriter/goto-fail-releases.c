// Case 2/(e): `goto fail` leaves the section holding the lock, and the code at `fail:` releases
// it first (`fail: pthread_mutex_unlock(&m); return -1;`). The goto becomes an exit: the outlined
// function returns, the runtime releases the mutex, and the call site jumps to a label added
// right after that unlock (`rcl_fail_unlocked:;`, on the same line), so the unlock is skipped
// exactly when the delegated section already released the lock. Other ways into `fail:` (a
// goto before the lock, with the lock taken by hand) still run the unlock. Was refused ("goto
// 'fail' leaves the critical section while holding the lock").
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
// RUN: %rcl-rewrite --all --line-directives %s -- %rcl_cflags > %t.lines.c 2>/dev/null
// RUN: %cc %t.lines.c -o %t.lines %rcl_libs && %t.lines > %t.lines.out
// RUN: diff %t.orig.out %t.lines.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int table[8], stores, failures;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_store_1(void *rcl_arg)
// CHECK: if (key < 0 || key >= 8)
// CHECK-NEXT: return 1;
// CHECK: if (table[key] == value)
// CHECK-NEXT: return 2;
// CHECK: stores++;
// CHECK-NEXT: return 0;
// CHECK: int store(int key, int value)
// CHECK: int rcl_exit = rcl_delegate_ctx(&m, rcl_cs_store_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT: if (rcl_exit == 1) {
// CHECK-NEXT:     goto rcl_fail_unlocked;
// CHECK-NEXT: } else if (rcl_exit == 2) {
// CHECK-NEXT:     goto rcl_same_unlocked;
// CHECK-NEXT: }
// CHECK: fail:
// CHECK-NEXT: __attribute__((unused)) pthread_mutex_unlock(&m); rcl_fail_unlocked:;
// CHECK-NEXT: failures++;
// CHECK: same:
// CHECK-NEXT: __attribute__((unused)) pthread_mutex_unlock(&m); rcl_same_unlocked:;
int store(int key, int value)
{
    if (value < 0) {
        pthread_mutex_lock(&m);
        goto fail;
    }
    pthread_mutex_lock(&m);
    if (key < 0 || key >= 8)
        goto fail;
    if (table[key] == value)
        goto same;
    table[key] = value;
    stores++;
    pthread_mutex_unlock(&m);
    return 0;
fail:
    pthread_mutex_unlock(&m);
    failures++;
    return -1;
same:
    pthread_mutex_unlock(&m);
    return 1;
}
// ERR: rcl: summary: 1 converted, 1 refused

int main(void)
{
    printf("%d %d %d %d %d\n", store(1, 5), store(1, 5), store(9, 1), store(2, -1), store(3, 7));
    printf("stores=%d failures=%d\n", stores, failures);
    return 0;
}
