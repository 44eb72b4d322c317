// A lock wrapper whose statement after its lock names its function (a trace of the lock's
// holders, `last_holder = __func__;`), and an unlock wrapper whose statement before its unlock
// does (`trace("%s", __FUNCTION__)`): each statement is copied into a function of its own
// (rcl_<wrapper>_after_lock, rcl_<wrapper>_before_unlock), where `__func__` would name the copy;
// the copy defines each name the statements use as the value it had in the wrapper, so the
// converted program records and prints what the original did.
// RUN: %rcl-rewrite --all --lock-fn=traced_lock --unlock-fn=traced_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static const char *last_holder;
static long traces, counter;

static void traced_lock(pthread_mutex_t *mu)
{
    pthread_mutex_lock(mu);
    last_holder = __func__;
}

static void traced_unlock(pthread_mutex_t *mu)
{
    traces += sizeof __FUNCTION__;
    pthread_mutex_unlock(mu);
}

// CHECK: static void rcl_traced_lock_after_lock(pthread_mutex_t *mu)
// CHECK: #define __func__ "traced_lock"
// CHECK: static void rcl_traced_unlock_before_unlock(pthread_mutex_t *mu)
// CHECK: #define __FUNCTION__ "traced_unlock"
static void bump(void)
{
    traced_lock(&m);
    counter++;
    traced_unlock(&m);
}

int main(void)
{
    for (int i = 0; i < 100; i++)
        bump();
    printf("%ld %ld %s\n", counter, traces, last_holder);
    return 0;
}
// STATS: rcl: server 0 ({{.*}}): 100 sections served
