// Robust mutexes: their sections are run by their callers (the server hands them back), so
// the owner-died state is never made consistent behind the program's back: after a thread
// died holding the mutex, a converted section leaves it exactly as the original program's
// lock/section/unlock does (EOWNERDEAD ignored, unlock without pthread_mutex_consistent: the
// mutex becomes not recoverable). Healthy robust mutexes keep exact counters. Before the fix
// the server silently made the mutex consistent and the next lock succeeded.
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_STATS=1 %t 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// RUN: env RCL_MODE=local %t | FileCheck %s
// CHECK: original: lock after=ENOTRECOVERABLE
// CHECK: converted: lock after=ENOTRECOVERABLE n=1
// CHECK: healthy: n=4000
// STATS: robust mutex {{[1-9]}}
#include "Inputs/harness.h"
#include <errno.h>
#include <rcl/rcl.h>
#include <string.h>

static pthread_mutex_t m;
static long n;
static int inc(void *arg) {
    (void)arg;
    return (int)++n;
}
static void *die_holding(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    return NULL; /* exits holding m: the next locker gets EOWNERDEAD */
}
static void init_robust(void) {
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&m, &a);
    pthread_mutexattr_destroy(&a);
}
static void kill_owner(void) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, die_holding, NULL) == 0);
    pthread_join(t, NULL);
}
static const char *lock_result(void) {
    int err = pthread_mutex_lock(&m);
    if (!err) pthread_mutex_unlock(&m);
    return err == ENOTRECOVERABLE ? "ENOTRECOVERABLE" : err ? strerror(err) : "0";
}
static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 1000; i++)
        rcl_delegate(&m, inc, NULL);
    return NULL;
}
int main(void) {
    init_robust();
    kill_owner();
    pthread_mutex_lock(&m); /* the original program: EOWNERDEAD, ignored */
    n++;
    pthread_mutex_unlock(&m);
    printf("original: lock after=%s\n", lock_result());
    pthread_mutex_destroy(&m);

    init_robust();
    n = 0;
    kill_owner();
    rcl_delegate(&m, inc, NULL);
    printf("converted: lock after=%s n=%ld\n", lock_result(), n);
    pthread_mutex_destroy(&m);

    init_robust();
    n = 0;
    run_threads(4, worker);
    printf("healthy: n=%ld\n", n);
    return 0;
}
