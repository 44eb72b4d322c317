// A lock wrapper whose failure branch ends the program inside a statement expression: Tor's
// tor_mutex_acquire (`err = pthread_mutex_lock(&m->mutex); if (PREDICT_UNLIKELY(err)) {
// raw_assert_unreached_msg(...); }`), whose STMT_BEGIN/STMT_END are `(void) ({` and `})` under
// GCC and Clang, so the branch is `(void)({ ...; tor_raw_abort_(); })`. The branch never
// completes, so the check is the success path and the section converts; its raw_assert of the
// parameter before the lock runs on the calling thread. Refused before ("what it does after the
// lock uses its local 'err'").
// RUN: %rcl-rewrite --all --lock-fn=tor_mutex_acquire --unlock-fn=tor_mutex_release %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
// CHECK: rcl: summary: 1 converted, 0 refused
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define STMT_BEGIN            (void)({
#define STMT_END              })
#define PREDICT_UNLIKELY(exp) __builtin_expect(!!(exp), 0)
static void tor_raw_abort_(void) __attribute__((noreturn));
static void tor_raw_abort_(void) {
    abort();
}
#define raw_assert(expr)                                                                           \
    STMT_BEGIN if (!(expr)) {                                                                      \
        fprintf(stderr, "assertion %s failed\n", #expr);                                           \
        tor_raw_abort_();                                                                          \
    }                                                                                              \
    STMT_END
#define raw_assert_unreached_msg(msg)                                                              \
    STMT_BEGIN fprintf(stderr, "%s\n", (msg));                                                     \
    tor_raw_abort_();                                                                              \
    STMT_END

typedef struct {
    pthread_mutex_t mutex;
} tor_mutex_t;

void tor_mutex_acquire(tor_mutex_t *m) {
    int err;
    raw_assert(m);
    err = pthread_mutex_lock(&m->mutex);
    if (PREDICT_UNLIKELY(err)) {
        raw_assert_unreached_msg("Error locking a mutex.");
    }
}

void tor_mutex_release(tor_mutex_t *m) {
    int err;
    raw_assert(m);
    err = pthread_mutex_unlock(&m->mutex);
    if (PREDICT_UNLIKELY(err)) {
        raw_assert_unreached_msg("Error unlocking a mutex.");
    }
}

static tor_mutex_t lm = {PTHREAD_MUTEX_INITIALIZER};
static long x;

static void *worker(void *a) {
    (void)a;
    for (int i = 0; i < 20000; i++) {
        tor_mutex_acquire(&lm);
        x++;
        tor_mutex_release(&lm);
    }
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("x=%ld\n", x);
    return 0;
}
