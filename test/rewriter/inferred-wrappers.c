// Lock and unlock wrappers nobody declared: a function of the file that only locks a mutex of
// its parameters or file-scope names (a monitor-enter helper `sched_lock()`, libmicrohttpd's
// `MHD_ip_count_lock(daemon)`, a bucket lock `bucket_lock(t, h)`) and one that only unlocks the
// same mutex from parameters of the same types. Their callers' sections convert as for declared
// wrappers (also when the unlock is the plain pthread call on the same file-scope mutex), and
// their own definitions, which hold the lock past their end by design, are no sections. A
// function that returns holding the lock and something else (a lookup returning its locked
// item) is no wrapper: its section stays refused.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
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

static pthread_mutex_t sched_m = PTHREAD_MUTEX_INITIALIZER;
static long runnable;
static void sched_lock(void) { pthread_mutex_lock(&sched_m); }
static void sched_unlock(void) { pthread_mutex_unlock(&sched_m); }

struct table { pthread_mutex_t locks[4]; long counts[4]; };
static struct table T = { { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                            PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER }, { 0 } };
static void bucket_lock(struct table *t, unsigned h) { pthread_mutex_lock(&t->locks[h & 3]); }
static void bucket_unlock(struct table *t, unsigned h) { pthread_mutex_unlock(&t->locks[h & 3]); }

// Returns its item locked: not a wrapper (what it returns is not the lock's result).
static long *lookup_locked(unsigned h)
{
    pthread_mutex_lock(&T.locks[h & 3]);
    // ERR-DAG: inferred-wrappers.c:[[@LINE-1]]:5: rcl: cannot convert critical section: the lock is still held at the end of its block
    return &T.counts[h & 3];
}

// CHECK-LABEL: static void wake(void)
// CHECK: rcl_delegate(&sched_m, rcl_cs_wake_1, (void *)0);
// CHECK-LABEL: static void sleep_one(void)
// CHECK: rcl_delegate(&sched_m, rcl_cs_sleep_one_1, (void *)0);
// CHECK-LABEL: static void count(unsigned h)
// CHECK: rcl_delegate_ctx(&(&T)->locks[(h) & 3], rcl_cs_count_1,
static void wake(void)
{
    sched_lock();
    runnable++;
    sched_unlock();
}

static void sleep_one(void)
{
    sched_lock();
    runnable--;
    pthread_mutex_unlock(&sched_m);
}

static void count(unsigned h)
{
    bucket_lock(&T, h);
    T.counts[h & 3]++;
    bucket_unlock(&T, h);
}
// ERR-DAG: rcl: summary: 3 converted, 1 refused
// STATS: rcl: server {{[0-9]+}} {{.*}}: 12000 sections served

static void *worker(void *arg)
{
    (void)arg;
    for (unsigned i = 0; i < 2000; i++) {
        wake();
        sleep_one();
        count(i);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    long *c = lookup_locked(1);
    long seen = *c;
    pthread_mutex_unlock(&T.locks[1]);
    printf("runnable=%ld counts=%ld,%ld,%ld,%ld seen=%ld\n", runnable, T.counts[0], T.counts[1],
           T.counts[2], T.counts[3], seen);
    return 0;
}
