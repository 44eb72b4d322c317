// rcl-cc's copy writes the statements of a statement expression that stands as a statement in
// the enclosing block: Tor's LOCK_LOGS()/UNLOCK_LOGS() are `STMT_BEGIN raw_assert(...);
// tor_mutex_acquire(&log_mutex); STMT_END`, and STMT_BEGIN/STMT_END are `(void) ({` and `})`
// under GCC and Clang, so the lock was the last statement of a block of its own and every
// section of tor's log.c was "still held at the end of its block" (21 of tor's 43). The copy
// expands the two macro uses without the statement expression (`(void)({ A; B; })` means `A;
// B;` there, when it declares nothing), and the section converts: the assertion before the lock
// runs on the calling thread, the one before the unlock inside the section. Without
// --resolve-copy it stays refused. A statement expression whose value is used, or that declares
// a variable, is left as it is.
// RUN: %rcl-rewrite --all --resolve-copy --line-directives --lock-fn=tor_mutex_acquire --unlock-fn=tor_mutex_release %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %rcl-rewrite --all --lock-fn=tor_mutex_acquire --unlock-fn=tor_mutex_release %s -- %rcl_cflags 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAIN
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
// ERR: resolve-copy-statement-expression.c:[[@LINE+61]]:{{[0-9]+}}: rcl: cannot convert critical section: the lock is still held at the end of its block
// ERR: rcl: summary: 1 converted, 1 refused
// PLAIN: rcl: summary: 0 converted, 2 refused
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define STMT_BEGIN (void)({
#define STMT_END   })
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

typedef struct {
    pthread_mutex_t mutex;
} tor_mutex_t;

void tor_mutex_acquire(tor_mutex_t *m) {
    raw_assert(m);
    pthread_mutex_lock(&m->mutex);
}

void tor_mutex_release(tor_mutex_t *m) {
    raw_assert(m);
    pthread_mutex_unlock(&m->mutex);
}

static tor_mutex_t log_mutex = {PTHREAD_MUTEX_INITIALIZER};
static int log_mutex_initialized = 1;
#define LOCK_LOGS()                                                                                \
    STMT_BEGIN raw_assert(log_mutex_initialized);                                                  \
    tor_mutex_acquire(&log_mutex);                                                                 \
    STMT_END
#define UNLOCK_LOGS()                                                                              \
    STMT_BEGIN raw_assert(log_mutex_initialized);                                                  \
    tor_mutex_release(&log_mutex);                                                                 \
    STMT_END
/* Declares a variable: its statements cannot move into the enclosing block. */
#define LOCK_LOGS_COUNTED()                                                                        \
    STMT_BEGIN int held_ = 1;                                                                      \
    lines += held_ - 1;                                                                            \
    tor_mutex_acquire(&log_mutex);                                                                 \
    STMT_END

static long lines, bytes;

static void log_line(int n) {
    LOCK_LOGS();
    lines++;
    bytes += n;
    UNLOCK_LOGS();
}

static void log_counted(int n) {
    LOCK_LOGS_COUNTED();
    bytes += n;
    UNLOCK_LOGS();
}

static void *worker(void *a) {
    (void)a;
    for (int i = 0; i < 20000; i++) {
        log_line(i % 7);
        log_counted(1);
    }
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("lines=%ld bytes=%ld\n", lines, bytes);
    return 0;
}
