// A layer of wrappers over another layer in one file, declared or not: a type's wrappers
// (`q_lock(q)`) over a checked portable layer (`mutex_lock(m)`: abort on an error), and MIT
// Kerberos's threads.c, where the header's `k5_mutex_lock` stores, reports and asserts the
// result of `k5_os_mutex_lock`, which locks only when `threads_on()` (declared const) says so.
// The outer wrapper's mutex is the inner one's with the call's arguments, under the inner one's
// guard: the sections convert (the guarded one delegates when the guard holds, and runs in
// place otherwise, as the wrappers would do nothing). A layer whose inner wrapper does more than
// lock (counts) is no wrapper: its own body is the section refused, and its callers' stay as
// written.
// RUN: %rcl-rewrite --all --lock-fn=k5_mutex_lock,k5_os_mutex_lock --unlock-fn=k5_mutex_unlock,k5_os_mutex_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct q { pthread_mutex_t m; long n; };
static void mutex_lock(pthread_mutex_t *m) { if (pthread_mutex_lock(m)) abort(); }
static void mutex_unlock(pthread_mutex_t *m) { if (pthread_mutex_unlock(m)) abort(); }
static void q_lock(struct q *q) { mutex_lock(&q->m); }
static void q_unlock(struct q *q) { mutex_unlock(&q->m); }

static long held;
static void counted_lock(pthread_mutex_t *m) { pthread_mutex_lock(m); held++; }
static void c_lock(struct q *q) { counted_lock(&q->m); }
// ERR: wrapper-layers.c:[[@LINE-1]]:35: rcl: cannot convert critical section: the lock is still held at the end of its block
static void c_unlock(struct q *q) { mutex_unlock(&q->m); }

static volatile int flag = -1;
__attribute__((const)) static int threads_on(void)
{
    if (flag == -1) flag = 1;
    return flag;
}
static int k5_os_mutex_lock(pthread_mutex_t *m)
{
    if (threads_on())
        return pthread_mutex_lock(m);
    else
        return 0;
}
static int k5_os_mutex_unlock(pthread_mutex_t *m)
{
    if (threads_on())
        return pthread_mutex_unlock(m);
    else
        return 0;
}
static inline void k5_mutex_lock(pthread_mutex_t *m)
{
    int r = k5_os_mutex_lock(m);
    if (r != 0) {
        fprintf(stderr, "k5_mutex_lock: Received error %d\n", r);
    }
    assert(r == 0);
}
static inline void k5_mutex_unlock(pthread_mutex_t *m)
{
    int r = k5_os_mutex_unlock(m);
    assert(r == 0);
}

static struct q Q = { PTHREAD_MUTEX_INITIALIZER, 0 };
static pthread_mutex_t key_lock = PTHREAD_MUTEX_INITIALIZER;
static long keys;

void push(struct q *q)
{
    q_lock(q);
    q->n++;
    q_unlock(q);
}
// CHECK: void push(struct q *q)
// CHECK: rcl_delegate

void add_key(void)
{
    k5_mutex_lock(&key_lock);
    keys++;
    k5_mutex_unlock(&key_lock);
}
// CHECK: void add_key(void)
// CHECK: (threads_on()) ? rcl_delegate

void push_counted(struct q *q)
{
    c_lock(q);
    q->n++;
    c_unlock(q);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 5000; i++) {
        push(&Q);
        add_key();
        if (i % 100 == 0) push_counted(&Q);
    }
    return 0;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    printf("n=%ld keys=%ld held=%ld\n", Q.n, keys, held);
    return 0;
}
// STATS: rcl: server 0 ({{.*}}): 20000 sections served
