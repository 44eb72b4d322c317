// Case 6: the lock call's result checked for failure, `if (pthread_mutex_lock(&m) != 0) fail;`
// (or `if (pthread_mutex_lock(&m)) fail;`), no else. A delegated lock does not fail the way a
// plain one can: the whole `if` starts the section, the failure branch is dropped, and the
// conversion says so in a note. Was refused ("the result of pthread_mutex_lock is used").
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
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_checked_1(void *rcl_arg)
// CHECK:     v++;
// CHECK-NEXT: return 0;
// CHECK: void checked(void)
// CHECK-NEXT: {
// CHECK-NEXT: {
// CHECK-NEXT:     rcl_delegate(&m, rcl_cs_checked_1, (void *)0);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: abort
void checked(void)
{
    if (pthread_mutex_lock(&m) != 0)
        abort();
    // ERR: lock-result-checked.c:[[@LINE-2]]:9: rcl: note: converted critical section drops the check of pthread_mutex_lock's result (line [[@LINE-2]]): a delegated lock does not fail the way a plain one can
    v++;
    pthread_mutex_unlock(&m);
}

// CHECK: static RCL_SECTION_INLINE int rcl_cs_returns_1(void *rcl_arg)
// CHECK:     v += 2;
// CHECK-NEXT: return 0;
// CHECK: int returns(void)
// CHECK-NEXT: {
// CHECK-NEXT: {
// CHECK-NEXT:     rcl_delegate(&m, rcl_cs_returns_1, (void *)0);
// CHECK-NEXT: }
// CHECK-NEXT: return 0;
int returns(void)
{
    if (pthread_mutex_lock(&m)) {
        fprintf(stderr, "lock failed\n");
        return -1;
    }
    // ERR: lock-result-checked.c:[[@LINE-4]]:9: rcl: note: converted critical section drops the check
    v += 2;
    pthread_mutex_unlock(&m);
    return 0;
}

// The same check written by a macro (`if` and `return` hidden in it): the macro's use is the
// section's first statement.
#define LOCK_OR_FAIL(m) if (pthread_mutex_lock(m) != 0) return -1
// CHECK: int by_macro(void)
// CHECK-NEXT: {
// CHECK-NEXT: {
// CHECK-NEXT:     rcl_delegate(&m, rcl_cs_by_macro_1, (void *)0);
// CHECK-NEXT: }
// CHECK-NEXT: return v;
int by_macro(void)
{
    LOCK_OR_FAIL(&m);
    // ERR: lock-result-checked.c:[[@LINE-1]]:5: rcl: note: converted critical section drops the check
    v += 3;
    pthread_mutex_unlock(&m);
    return v;
}

// The result stored in a local and checked in the next statement (`rc = LOCK(m); if (rc) return
// rc;`), or stored and used later: the check goes with the lock statement, and the call site
// sets the variable to 0, what a successful lock returns.
// CHECK: int stored(void)
// CHECK-NEXT: {
// CHECK-NEXT: int rc;
// CHECK-NEXT: rc = 0;
// CHECK-NEXT: {
// CHECK-NEXT:     rcl_delegate(&m, rcl_cs_stored_1, (void *)0);
// CHECK-NEXT: }
// CHECK-NEXT: return rc;
int stored(void)
{
    int rc;
    rc = pthread_mutex_lock(&m);
    if (rc)
        return rc;
    // ERR: lock-result-checked.c:[[@LINE-3]]:10: rcl: note: converted critical section drops the check of pthread_mutex_lock's result (line [[@LINE-3]]): a delegated lock does not fail the way a plain one can (the runtime takes the mutex itself), so only the success path remains; 'rc' is set to 0, what a successful lock returns
    v += 4;
    pthread_mutex_unlock(&m);
    return rc;
}

// CHECK: int declared(void)
// CHECK-NEXT: {
// CHECK-NEXT: int err = 0;
// CHECK-NEXT: {
// CHECK: rcl_delegate_ctx(&m, rcl_cs_declared_1, &rcl_ctx, sizeof rcl_ctx);
int declared(void)
{
    int err = pthread_mutex_lock(&m);
    // ERR: lock-result-checked.c:[[@LINE-1]]:15: rcl: note: converted critical section drops the check
    v += err + 5;
    pthread_mutex_unlock(&m);
    return err;
}
// ERR: rcl: summary: 5 converted, 0 refused

int main(void)
{
    checked();
    printf("%d %d\n", returns(), v);
    printf("%d\n", by_macro());
    printf("%d %d v=%d\n", stored(), declared(), v);
    return 0;
}
