// An unlock whose result is kept in a local and checked (liburcu's benchmarks: `ret =
// pthread_mutex_unlock(&m); if (ret) { perror(...); exit(-1); }`, as their locks are): the
// section ends there, the check goes with the unlock (a delegated unlock does not fail), and
// the call site sets the local to 0, what a successful unlock returns, for what reads it after.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t affinity_mutex = PTHREAD_MUTEX_INITIALIZER;
static int cpu_affinities[4] = { 3, 1, 2, 0 };
static int next_aff;

// CHECK-LABEL: static int next_cpu(void)
// CHECK: ret = 0; (void)ret;
// CHECK: rcl_delegate_ctx(&affinity_mutex, rcl_cs_next_cpu_1,
// CHECK: } ret = 0; (void)ret;
static int next_cpu(void)
{
    int cpu, ret;

    ret = pthread_mutex_lock(&affinity_mutex);
    if (ret) {
        perror("Error in pthread mutex lock");
        exit(-1);
    }
    cpu = cpu_affinities[next_aff++ & 3];
    ret = pthread_mutex_unlock(&affinity_mutex);
    if (ret) {
        perror("Error in pthread mutex unlock");
        exit(-1);
    }
    return cpu + ret;
}

// CHECK-LABEL: static int count_up(void)
// CHECK: } int done = 0; (void)done;
static long counted;
static int count_up(void)
{
    pthread_mutex_lock(&affinity_mutex);
    counted++;
    int done = pthread_mutex_unlock(&affinity_mutex);
    return done;
}
// ERR: unlock-result-stored.c:{{[0-9]+}}:{{[0-9]+}}: rcl: note: converted critical section drops the check of pthread_mutex_unlock's result (line {{[0-9]+}}): a delegated unlock does not fail the way a plain one can (the runtime releases the mutex itself), so only the success path remains; 'ret' is set to 0, what a successful unlock returns
// ERR: rcl: summary: 2 converted, 0 refused
// STATS: rcl: server {{[0-9]+}} {{.*}}: 4000 sections served

static void *worker(void *arg)
{
    (void)arg;
    long sum = 0;
    for (int i = 0; i < 1000; i++) sum += next_cpu() + count_up();
    return (void *)sum;
}

int main(void)
{
    pthread_t t[2];
    void *sums[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], &sums[i]);
    printf("sum=%ld next=%d counted=%ld\n", (long)sums[0] + (long)sums[1], next_aff, counted);
    return 0;
}
