// A lock or unlock whose result is asserted, as libusb writes every pthread call
// (`PTHREAD_CHECK(pthread_mutex_lock(m))`, `assert(expression == 0)` in a build with
// assertions): in a wrapper's body and in a section itself. glibc spells assert in GNU C as
// `(void)sizeof((X) ? 1 : 0), __extension__ ({ if (X) ; else __assert_fail(...); })`; other C
// libraries as `(X) ? (void)0 : fail(...)` (the MY_ASSERT form below). A delegated operation
// does not fail, so the assertion always holds: the sections convert (the corpus refused
// libusb's 61 sections with "lock wrapper 'usbi_mutex_lock' does more than lock its first
// argument"). A failure branch that does more than stop the program keeps them refused.
// RUN: %rcl-rewrite --all --lock-fn=usbi_mutex_lock --unlock-fn=usbi_mutex_unlock --lock-fn=noisy_lock --unlock-fn=usbi_mutex_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc -Wall -Wextra -Werror %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -Wall -Wextra -Werror %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#undef NDEBUG
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define PTHREAD_CHECK(expression) assert(expression == 0)
#define MY_ASSERT(x) ((x) ? (void)0 : abort())

static inline void usbi_mutex_lock(pthread_mutex_t *mutex)
{
    PTHREAD_CHECK(pthread_mutex_lock(mutex));
}

static inline void usbi_mutex_unlock(pthread_mutex_t *mutex)
{
    PTHREAD_CHECK(pthread_mutex_unlock(mutex));
}

static long misses;

// Not a check only: the failure branch counts.
static inline void noisy_lock(pthread_mutex_t *mutex)
{
    pthread_mutex_lock(mutex) == 0 ? (void)0 : (void)misses++;
}

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER,
                       c = PTHREAD_MUTEX_INITIALIZER, d = PTHREAD_MUTEX_INITIALIZER;
static long na, nb, nc, nd;

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        // CHECK: rcl_delegate{{.*}}rcl_cs_work_1
        usbi_mutex_lock(&a);
        na++;
        usbi_mutex_unlock(&a);
        // CHECK: rcl_delegate{{.*}}rcl_cs_work_2
        assert(pthread_mutex_lock(&b) == 0);
        nb += 2;
        assert(pthread_mutex_unlock(&b) == 0);
        // CHECK: rcl_delegate{{.*}}rcl_cs_work_3
        MY_ASSERT(!pthread_mutex_lock(&c));
        nc += 3;
        MY_ASSERT(pthread_mutex_unlock(&c) == 0);
        // ERR: lock-asserted.c:[[@LINE+1]]:9: rcl: cannot convert critical section: lock wrapper 'noisy_lock' does more than lock its first argument
        noisy_lock(&d);
        nd++;
        usbi_mutex_unlock(&d);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    printf("%ld %ld %ld %ld %ld\n", na, nb, nc, nd, misses);
    return 0;
}
