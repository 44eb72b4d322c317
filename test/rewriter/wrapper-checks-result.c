// Declared wrappers that check their pthread call's result, the way real programs write them:
// xz-utils' mythread_mutex_lock (`int ret = pthread_mutex_lock(mutex); assert(ret == 0);
// (void)ret;`) and libuv's uv_mutex_lock (`if (pthread_mutex_lock(mutex)) abort();`). A
// delegated lock or unlock does not fail the way a plain one can, so the check is only the
// success path: the sections convert, like a checked lock written in the section itself
// (lock-result-checked.c). Before, both were refused with "lock wrapper '...' does more than
// lock its first argument". An unlock wrapper that updates a value before its checked unlock
// keeps that effect (unlock-wrapper-with-effects.c); a wrapper that does something on the
// success path after the call, or reads another local, stays refused.
// RUN: %rcl-rewrite --all --lock-fn=mythread_mutex_lock --unlock-fn=mythread_mutex_unlock --lock-fn=uv_mutex_lock --unlock-fn=uv_mutex_unlock --lock-fn=lk_lock --unlock-fn=lk_unlock_add --lock-fn=noisy_lock --unlock-fn=uv_mutex_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc -Wall -Wextra -Werror %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -Wall -Wextra -Werror %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef pthread_mutex_t mythread_mutex;

static inline void mythread_mutex_lock(mythread_mutex *mutex)
{
    int ret = pthread_mutex_lock(mutex);
    assert(ret == 0);
    (void)ret;
}

static inline void mythread_mutex_unlock(mythread_mutex *mutex)
{
    int ret = pthread_mutex_unlock(mutex);
    assert(ret == 0);
    (void)ret;
}

void uv_mutex_lock(pthread_mutex_t *mutex)
{
    if (pthread_mutex_lock(mutex)) abort();
}

void uv_mutex_unlock(pthread_mutex_t *mutex)
{
    if (pthread_mutex_unlock(mutex) != 0) {
        fprintf(stderr, "unlock failed\n");
        abort();
    }
}

struct lk { long value; pthread_mutex_t m; };
static void lk_lock(struct lk *l)
{
    int rc = pthread_mutex_lock(&l->m);
    if (rc != 0) abort();
}
static void lk_unlock_add(struct lk *l, long by)
{
    l->value += by;
    int rc = pthread_mutex_unlock(&l->m);
    assert(rc == 0);
    (void)rc;
}

// Does something on the success path after the lock: refused.
static long noisy;
static void noisy_lock(pthread_mutex_t *mutex)
{
    int ret = pthread_mutex_lock(mutex);
    noisy += ret == 0;
}

static mythread_mutex a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static struct lk L = { 0, PTHREAD_MUTEX_INITIALIZER };
static long in_a, in_b;

// CHECK-LABEL: static void *worker(void *arg)
// CHECK: rcl_delegate(&a, rcl_cs_worker_1,
// CHECK: rcl_delegate(&b, rcl_cs_worker_2,
// CHECK: rcl_delegate(&L.m, rcl_cs_worker_3,
// ERR-DAG: rcl:   lock 'a': 1 converted, 0 refused
// ERR-DAG: rcl:   lock 'L.m': 1 converted, 0 refused
static void *worker(void *arg)
{
    long n = (long)arg;
    for (long i = 0; i < 20000; i++) {
        mythread_mutex_lock(&a);
        in_a += n;
        mythread_mutex_unlock(&a);
        uv_mutex_lock(&b);
        in_b += 2 * n;
        uv_mutex_unlock(&b);
        lk_lock(&L);
        L.value++;
        lk_unlock_add(&L, n);
    }
    return NULL;
}

void count_noisy(void)
{
    noisy_lock(&b);
    // ERR-DAG: wrapper-checks-result.c:[[@LINE-1]]:5: rcl: cannot convert critical section: lock wrapper 'noisy_lock' does more than lock its first argument
    in_b++;
    uv_mutex_unlock(&b);
}
// ERR-DAG: rcl: summary: 3 converted, 1 refused

int main(void)
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    count_noisy();
    printf("a=%ld b=%ld L=%ld noisy=%ld\n", in_a, in_b, L.value, noisy);
    return 0;
}
