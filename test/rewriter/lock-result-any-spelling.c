// A lock's result checked in any spelling whose test is false when the lock succeeds: `< 0`
// (house style for "negative is an error": pthread_mutex_lock returns 0 or a positive error, so
// the branch is dead), the result stored and checked `< 0`, `!(!(...))` through two macro
// layers (libmicrohttpd's MHD_mutex_lock_chk_), `__builtin_expect` (an `unlikely()`), `== -1`;
// and a lock wrapper whose failure path calls a helper that exits without being declared
// noreturn. Each is a checked lock: the section converts and the check goes with the lock. A
// test that is true on success (`if (lock(&m) == 0) ...`) is not a check: refused as before.
// The third form used to be refused as "returns while holding the lock", which was false.
// RUN: %rcl-rewrite --all --lock-fn=grab --unlock-fn=drop %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define unlikely(x) __builtin_expect(!!(x), 0)
#define MHD_mutex_lock_(m) (!pthread_mutex_lock(m))
#define MHD_PANIC(msg) do { fprintf(stderr, "%s\n", msg); abort(); } while (0)
#define MHD_mutex_lock_chk_(m) do { if (!MHD_mutex_lock_(m)) MHD_PANIC("lock failed"); } while (0)

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;

// Reports and exits: real code seldom declares such a helper noreturn.
static void fail(int err, const char *what)
{
    fprintf(stderr, "%s failed: %d\n", what, err);
    exit(err);
}

static void grab(pthread_mutex_t *l)
{
    int ret = pthread_mutex_lock(l);
    if (ret) fail(ret, "mutex_lock");
}

static void drop(pthread_mutex_t *l)
{
    int ret = pthread_mutex_unlock(l);
    if (ret < 0) fail(ret, "mutex_unlock");
}

// CHECK-LABEL: int bump_lt(void)
// CHECK: rcl_delegate(&m, rcl_cs_bump_lt_1,
// ERR-DAG: lock-result-any-spelling.c:[[@LINE+3]]:9: rcl: note: converted critical section drops the check of pthread_mutex_lock's result
int bump_lt(void)
{
    if (pthread_mutex_lock(&m) < 0) { fprintf(stderr, "lock failed\n"); return -1; }
    counter++;
    pthread_mutex_unlock(&m);
    return 0;
}

// CHECK-LABEL: int bump_lt_var(void)
// CHECK: int error = 0;
// CHECK: rcl_delegate(&m, rcl_cs_bump_lt_var_1,
int bump_lt_var(void)
{
    int error = pthread_mutex_lock(&m);
    if (error < 0) { fprintf(stderr, "lock failed\n"); return error; }
    counter++;
    pthread_mutex_unlock(&m);
    return error;
}

// CHECK-LABEL: void bump_macros(void)
// CHECK: rcl_delegate(&m, rcl_cs_bump_macros_1,
void bump_macros(void)
{
    MHD_mutex_lock_chk_(&m);
    counter += 2;
    if (unlikely(pthread_mutex_unlock(&m) == -1)) abort();
}

// CHECK-LABEL: void bump_wrappers(void)
// CHECK: rcl_delegate(&m, rcl_cs_bump_wrappers_1,
void bump_wrappers(void)
{
    grab(&m);
    counter += 3;
    drop(&m);
}

// True on success: the branch is the section itself, not a failure path.
// ERR-DAG: lock-result-any-spelling.c:[[@LINE+3]]:9: rcl: cannot convert critical section: the result of pthread_mutex_lock is used
void bump_on_success(void)
{
    if (pthread_mutex_lock(&m) == 0) {
        counter += 4;
        pthread_mutex_unlock(&m);
    }
}
// ERR-DAG: rcl: summary: 4 converted, 1 refused
// STATS: rcl: server {{[0-9]+}} {{.*}}: {{[1-9][0-9]*}} sections served

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        bump_lt();
        bump_lt_var();
        bump_macros();
        bump_wrappers();
        bump_on_success();
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("counter=%ld\n", counter);
    return 0;
}
