// A lock whose result the test assigns to a variable that outlives the test: PortAudio's
// `PA_ENSURE(PaUnixMutex_Lock(&m))`, `if ((paUtilErr_ = (expr)) < paNoError) { ...; goto
// error; }` with paUtilErr_ a file-scope static, and the common `if ((rc =
// pthread_mutex_lock(&m)) != 0) return rc;` whose rc the function returns later. The test is a
// checked lock (a delegated lock does not fail); the call site sets the variable to what the
// lock returned on success, so what reads it after sees the same value. A variable the lock's
// own arguments read would be set too early: refused as before. Rewritten as rcl-cc does
// (--resolve-copy): PA_ENSURE inside the section writes the local result in its body. And a
// macro block whose local is initialised with the operation and only asserted (ASSERT_CALL).
// RUN: %rcl-rewrite --all --resolve-copy --lock-fn=pa_lock --unlock-fn=pa_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

typedef int PaError;
#define paNoError 0
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
static PaError paUtilErr_ = -9; /* as PortAudio's pa_unix_util.h: set by each PA_ENSURE */
#define PA_ENSURE(expr)                                                                            \
    do {                                                                                           \
        if (UNLIKELY((paUtilErr_ = (expr)) < paNoError)) {                                         \
            fprintf(stderr, "Expression '" #expr "' failed\n");                                    \
            result = paUtilErr_;                                                                   \
            goto error;                                                                            \
        }                                                                                          \
    } while (0);

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t locks[4] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                   PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static int state, total;

static PaError pa_lock(pthread_mutex_t *m) {
    PaError result = paNoError;
    if (pthread_mutex_lock(m) != 0) result = -1;
    return result;
}
static PaError pa_unlock(pthread_mutex_t *m) {
    PaError result = paNoError;
    if (pthread_mutex_unlock(m) != 0) result = -1;
    return result;
}

// CHECK-LABEL: static PaError set_state(int s) {
// CHECK: paUtilErr_ = 0;
// CHECK: rcl_delegate_ctx(&{{ ?}}mtx, rcl_cs_set_state_{{[0-9]+}}, &rcl_ctx, sizeof rcl_ctx);
// ERR-DAG: lock-result-assigned.c:[[@LINE+4]]:{{[0-9]+}}: rcl: note: converted critical section {{.*}}'paUtilErr_' is set to 0, what the test assigned it on success
static PaError set_state(int s) {
    PaError result = paNoError;
    int old = paUtilErr_;
    PA_ENSURE(pa_lock(&mtx));
    state = s;
    total += old;
    pa_unlock(&mtx);
    return result;
error:
    return result;
}

// CHECK-LABEL: static int add(int n) {
// CHECK: rc = 0; (void)rc;
// CHECK: rcl_delegate_ctx(&{{ ?}}mtx, rcl_cs_add_{{[0-9]+}}, &rcl_ctx, sizeof rcl_ctx);
static int add(int n) {
    int rc;
    if ((rc = pthread_mutex_lock(&mtx)) != 0)
        return rc;
    total += n;
    pthread_mutex_unlock(&mtx);
    return rc + 100; // reads what the lock returned
}

// PortAudio's AlsaRestart: the unlock checked the same way, under the label the section's own
// failure branches jump to; the variable gets its value after the section.
// CHECK-LABEL: static PaError restart(int s) {
// CHECK: paUtilErr_ = 0;
// CHECK: rcl_delegate_ctx(&{{ ?}}mtx, rcl_cs_restart_{{[0-9]+}}, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT: } paUtilErr_ = 0;
static int stop_ok(int s) { return s < 0 ? -5 : 0; }
static PaError restart(int s) {
    PaError result = paNoError;
    PA_ENSURE(pa_lock(&mtx));
    PA_ENSURE(stop_ok(s));
    state = s;
error:
    PA_ENSURE(pa_unlock(&mtx));
    return result;
}

// CHECK-LABEL: static int sub(int n) {
// CHECK: rcl_delegate_ctx(&{{ ?}}mtx, rcl_cs_sub_{{[0-9]+}}, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT: } rc = 0; (void)rc;
static int sub(int n) {
    int rc = 7;
    pthread_mutex_lock(&mtx);
    total -= n;
    if ((rc = pthread_mutex_unlock(&mtx)) != 0)
        return -1;
    return rc + 200;
}

// PortAudio's JACK host: `ASSERT_CALL(pthread_mutex_lock(&m), 0)`, a macro block whose local
// is initialised with the operation and then only asserted.
#define ASSERT_CALL(expr, success)                                                                 \
    do {                                                                                           \
        int err = (expr);                                                                          \
        assert(err == success);                                                                    \
    } while (0)
// CHECK-LABEL: static void jack_flag(int s) {
// CHECK: rcl_delegate_ctx(&{{ ?}}mtx, rcl_cs_jack_flag_{{[0-9]+}}, &rcl_ctx, sizeof rcl_ctx);
static void jack_flag(int s) {
    ASSERT_CALL(pthread_mutex_lock(&mtx), 0);
    state += s;
    ASSERT_CALL(pthread_mutex_unlock(&mtx), 0);
}

// ERR-DAG: lock-result-assigned.c:[[@LINE+3]]:{{[0-9]+}}: rcl: cannot convert critical section: the result of pthread_mutex_lock is used
static int pick(int i) {
    int idx = i;
    if ((idx = pthread_mutex_lock(&locks[idx])) != 0)
        return -1;
    total += i;
    pthread_mutex_unlock(&locks[i]);
    return idx;
}

int main(void) {
    printf("set_state %d\n", set_state(3));
    printf("paUtilErr_ %d\n", paUtilErr_);
    printf("add %d\n", add(5));
    printf("pick %d\n", pick(1));
    printf("restart %d %d\n", restart(4), restart(-1));
    printf("paUtilErr_ %d\n", paUtilErr_);
    printf("sub %d\n", sub(2));
    jack_flag(10);
    printf("state %d total %d\n", state, total);
    return 0;
}
// STATS: rcl: server 0 (cpu {{-?[0-9]+}}): 6 sections served
