// Lock wrappers as libraries write them, read along their success path (WrapperModel): the
// result kept in a local declared earlier and checked through a macro that reports and aborts
// (liburcu's `ret = pthread_mutex_lock(m); if (ret) urcu_die(ret);`), kept and returned
// (APR's `rv = pthread_mutex_lock(&m->mutex); return rv;`), checked by a macro that jumps to
// the function's error exit, which returns a constant that is 0 on success (PortAudio's
// `PA_ENSURE_SYSTEM(pthread_mutex_lock(&self->mtx), 0); error: return result;`), and the lock
// inside a branch that is always taken (jemalloc's `if (isthreaded)` with `#define isthreaded
// true`). Each stands for a plain lock or unlock: the sections convert, also where the caller
// checks the wrapper's result. A wrapper whose success path returns something else than 0 is
// still refused, with the reason.
// RUN: %rcl-rewrite --all --lock-fn=mutex_lock --unlock-fn=mutex_unlock --lock-fn=apr_lock --unlock-fn=apr_unlock --lock-fn=pa_lock --unlock-fn=pa_unlock --lock-fn=je_lock --unlock-fn=je_unlock --lock-fn=odd_lock --unlock-fn=mutex_unlock %s -- %rcl_cflags > %t.c 2> %t.err
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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define urcu_die(cause)                                                                  \
    do {                                                                                 \
        fprintf(stderr, "(" __FILE__ ":%s@%u) Unrecoverable error: %d\n", __func__,     \
                __LINE__, cause);                                                        \
        abort();                                                                         \
    } while (0)

static void mutex_lock(pthread_mutex_t *mutex)
{
    int ret;

    ret = pthread_mutex_lock(mutex);
    if (ret)
        urcu_die(ret);
}

static void mutex_unlock(pthread_mutex_t *mutex)
{
    int ret;

    ret = pthread_mutex_unlock(mutex);
    if (ret)
        urcu_die(ret);
}

typedef int apr_status_t;
#define APR_SUCCESS 0
typedef struct { pthread_mutex_t mutex; } apr_thread_mutex_t;

static apr_status_t apr_lock(apr_thread_mutex_t *mutex)
{
    apr_status_t rv;

    rv = pthread_mutex_lock(&mutex->mutex);
    return rv;
}

static apr_status_t apr_unlock(apr_thread_mutex_t *mutex)
{
    apr_status_t status;

    status = pthread_mutex_unlock(&mutex->mutex);
    return status;
}

typedef int PaError;
#define paNoError 0
#define paUnanticipatedHostError (-9999)
#define PA_ENSURE_SYSTEM(expr, success)                                                 \
    do {                                                                                \
        int pa_res;                                                                     \
        if ((pa_res = (expr)) != success) {                                             \
            fprintf(stderr, "system call failed: %d\n", pa_res);                        \
            result = paUnanticipatedHostError;                                          \
            goto error;                                                                 \
        }                                                                               \
    } while (0)
typedef struct { pthread_mutex_t mtx; } PaUnixMutex;

static PaError pa_lock(PaUnixMutex *self)
{
    PaError result = paNoError;
    PA_ENSURE_SYSTEM(pthread_mutex_lock(&self->mtx), 0);
error:
    return result;
}

static PaError pa_unlock(PaUnixMutex *self)
{
    PaError result = paNoError;
    PA_ENSURE_SYSTEM(pthread_mutex_unlock(&self->mtx), 0);
error:
    return result;
}

#define isthreaded true
typedef struct { pthread_mutex_t lock; } malloc_mutex_t;
static inline void je_lock(malloc_mutex_t *mutex)
{
    if (isthreaded) {
        pthread_mutex_lock(&mutex->lock);
    }
}
static inline void je_unlock(malloc_mutex_t *mutex)
{
    if (isthreaded) {
        pthread_mutex_unlock(&mutex->lock);
    }
}

// On success it returns 1: a caller checking `!= 0` would take its success for a failure.
static int odd_lock(pthread_mutex_t *mutex)
{
    int ret = pthread_mutex_lock(mutex);
    return ret == 0;
}

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static apr_thread_mutex_t b = { PTHREAD_MUTEX_INITIALIZER };
static PaUnixMutex c = { PTHREAD_MUTEX_INITIALIZER };
static malloc_mutex_t d = { PTHREAD_MUTEX_INITIALIZER };
static long na, nb, nc, nd;

// CHECK-LABEL: static apr_status_t add_b(long n)
// CHECK: rv = 0;
// CHECK: rcl_delegate_ctx(&b.mutex, rcl_cs_add_b_1,
static apr_status_t add_b(long n)
{
    apr_status_t rv = apr_lock(&b);
    if (rv != APR_SUCCESS)
        return rv;
    nb += n;
    return apr_unlock(&b);
}

// CHECK-LABEL: static PaError add_c(long n)
// CHECK: rcl_delegate_ctx(&c.mtx, rcl_cs_add_c_1,
static PaError add_c(long n)
{
    PaError result = paNoError;
    PA_ENSURE_SYSTEM(pa_lock(&c), paNoError);
    nc += n;
    PA_ENSURE_SYSTEM(pa_unlock(&c), paNoError);
error:
    return result;
}

// CHECK-LABEL: static void *worker(void *arg)
// CHECK: rcl_delegate_ctx(&a, rcl_cs_worker_1,
// CHECK: rcl_delegate_ctx(&d.lock, rcl_cs_worker_2,
static void *worker(void *arg)
{
    long n = (long)arg;
    for (int i = 0; i < 5000; i++) {
        mutex_lock(&a);
        na += n;
        mutex_unlock(&a);
        if (add_b(n) != APR_SUCCESS) abort();
        if (add_c(n) != paNoError) abort();
        je_lock(&d);
        nd += n;
        je_unlock(&d);
    }
    return NULL;
}

void odd(void)
{
    odd_lock(&a);
    // ERR-DAG: wrapper-success-path.c:[[@LINE-1]]:5: rcl: cannot convert critical section: lock wrapper 'odd_lock' does more than lock its first argument, and it returns something else than 0 when the lock succeeds
    na++;
    mutex_unlock(&a);
}
// ERR-DAG: rcl: summary: 4 converted, 1 refused
// STATS: rcl: server {{[0-9]+}} {{.*}}: {{[1-9][0-9]*}} sections served

int main(void)
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    odd();
    printf("a=%ld b=%ld c=%ld d=%ld\n", na, nb, nc, nd);
    return 0;
}
