// End to end: rcl-prof's profile.json drives rcl-rewrite --profile. Of two locks, only `hot`
// (about a quarter of the threads' time in its critical sections) is recommended; the rewriter
// converts exactly its critical section, leaves `cold`'s alone, and the rewritten program,
// linked with librcl, computes the same totals.
// REQUIRES: rcl-rewrite
// RUN: %cc %s -o %t
// RUN: %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s --check-prefix=PROFILE
// RUN: %rcl-rewrite --profile=%t.json %s -- %rcl_cflags 2>%t.summary >%t.rewritten.c
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.summary
// RUN: FileCheck %s --check-prefix=SOURCE < %t.rewritten.c
// RUN: FileCheck %s --check-prefix=UNTOUCHED < %t.rewritten.c
// RUN: %cc -I%S %t.rewritten.c -o %t.rcl %rcl_libs
// RUN: %t.rcl | FileCheck %s --check-prefix=OUTPUT
// PROFILE-DAG: lock {{[0-9]}} hot identity=symbol acq=600 {{.*}} advice=convert
// PROFILE-DAG: lock {{[0-9]}} cold identity=symbol acq=12 {{.*}} advice=dont
// SUMMARY: rcl: summary: 1 converted, 0 refused
// SUMMARY-NEXT: lock 'hot': 1 converted
// SOURCE: {{^ +}}rcl_delegate(&hot,
// SOURCE: {{^ +}}pthread_mutex_lock(&cold);
// UNTOUCHED-NOT: {{^ +}}pthread_mutex_lock(&hot);
// OUTPUT: hot_count=600 cold_count=12
#include <pthread.h>
#include <stdio.h>

#include "Inputs/spin.h"

#define THREADS 2
#define ITERS 300

pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t cold = PTHREAD_MUTEX_INITIALIZER;
static long hot_count, cold_count;

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        pthread_mutex_lock(&hot);
        spin_ns(20000);
        hot_count++;
        pthread_mutex_unlock(&hot);
        spin_ns(5000);
        if (i % 50 == 0) {
            pthread_mutex_lock(&cold);
            cold_count++;
            pthread_mutex_unlock(&cold);
        }
    }
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("hot_count=%ld cold_count=%ld\n", hot_count, cold_count);
    return 0;
}
