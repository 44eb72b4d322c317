// A lock wrapper pair whose check keeps the result in a file-scope variable: PortAudio's
// PaUnixMutex_Lock/PaUnixMutex_Unlock are `PaError result = paNoError; PA_ENSURE_SYSTEM(
// pthread_mutex_lock(&self->mtx), 0); error: return result;`, and PA_ENSURE_SYSTEM tests
// `(paUtilErr_ = (expr)) != success`, paUtilErr_ a global. On success the wrapper leaves 0
// there: the converted section sets it right after its lock (on the server), and the unlock
// wrapper's part sets it once the section returns, so a section that reads it (and the code
// after the unlock) sees what the original saw. Refused before ("it uses the result of the lock").
// The wrappers are defined after the sections (their copies need only paUtilErr_ and the
// parameter types, declared before).
// The same test in the section itself: lock-result-assigned.c.
// RUN: %rcl-rewrite --all --lock-fn=PaUnixMutex_Lock --unlock-fn=PaUnixMutex_Unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc -Wall -Wextra -Werror %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -Wall -Wextra -Werror %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
// ERR: rcl: summary: 2 converted, 0 refused
// CHECK: static void rcl_PaUnixMutex_Lock_after_lock(PaUnixMutex *self)
// CHECK: paUtilErr_ = 0; /* what its test of the result assigned on success */
// CHECK: static void rcl_PaUnixMutex_Unlock_after_unlock(PaUnixMutex *self)
// CHECK: paUtilErr_ = 0; /* what its test of the result assigned on success */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef int PaError;
#define paNoError                0
#define paUnanticipatedHostError (-9999)
PaError paUtilErr_;
static pthread_t paUnixMainThread;
static int last_host_error;
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PA_ENSURE_SYSTEM(expr, success)                                                            \
    do {                                                                                           \
        if (UNLIKELY((paUtilErr_ = (expr)) != success)) {                                          \
            if (pthread_equal(pthread_self(), paUnixMainThread)) {                                 \
                last_host_error = paUtilErr_;                                                      \
            }                                                                                      \
            fprintf(stderr, "failed: %s\n", strerror(paUtilErr_));                                 \
            result = paUnanticipatedHostError;                                                     \
            goto error;                                                                            \
        }                                                                                          \
    } while (0);

typedef struct {
    pthread_mutex_t mtx;
} PaUnixMutex;

/* Defined below, after the sections that use them (as in pa_unix_util.c): the copies name
 * only the parameter types and paUtilErr_, declared above. */
PaError PaUnixMutex_Lock(PaUnixMutex *self);
PaError PaUnixMutex_Unlock(PaUnixMutex *self);

static PaUnixMutex m = {PTHREAD_MUTEX_INITIALIZER};
static long counter;

static void *worker(void *a) {
    (void)a;
    for (int i = 0; i < 10000; i++) {
        PaUnixMutex_Lock(&m);
        counter++;
        paUtilErr_ = 7; /* the unlock's test sets it back to 0 */
        PaUnixMutex_Unlock(&m);
    }
    return NULL;
}

int main(void) {
    pthread_t t[2];
    paUnixMainThread = pthread_self();
    paUtilErr_ = 5;
    PaUnixMutex_Lock(&m);
    int seen = paUtilErr_; /* 0: set by the lock's test */
    counter += 100;
    paUtilErr_ = 3;
    PaUnixMutex_Unlock(&m);
    int after = paUtilErr_; /* 0: set by the unlock's test */
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("counter=%ld seen=%d after=%d err=%d host=%d\n", counter, seen, after, paUtilErr_,
           last_host_error);
    return 0;
}

PaError PaUnixMutex_Lock(PaUnixMutex *self) {
    PaError result = paNoError;
    PA_ENSURE_SYSTEM(pthread_mutex_lock(&self->mtx), 0);
error:
    return result;
}

PaError PaUnixMutex_Unlock(PaUnixMutex *self) {
    PaError result = paNoError;
    PA_ENSURE_SYSTEM(pthread_mutex_unlock(&self->mtx), 0);
error:
    return result;
}
