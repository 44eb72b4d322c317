// Two locks of very different load: `hot` (a 20 us critical section in every iteration of
// every thread) ranks above `cold` (a tiny one every 50th iteration); both are reported with
// their call sites at the right lines, and hot's % time in CS is within a wide tolerance of
// what the program measured itself (hold time over the summed lifetime of all its threads).
// RUN: %cc %s -o %t
// RUN: %rcl-prof -o %t.txt --json %t.json -- %t %t.self
// RUN: FileCheck %s --check-prefix=REPORT < %t.txt
// RUN: %python %S/Inputs/profile_lines.py %t.json --self %t.self | FileCheck %s
// REPORT: {{^ +}}#  lock
// REPORT-NEXT: {{^ +}}1  hot {{.*}} convert
// REPORT-NEXT: at two_locks_ranked.c:{{[0-9]+}} worker ({{[0-9]+}} lock)
// REPORT-NEXT: {{^ +}}2  cold {{.*}} dont
// CHECK: locks 2 untracked=0 threads=3
// CHECK-NEXT: lock 1 hot identity=symbol acq=3000 {{.*}} advice=convert misses=n/a
// CHECK-NEXT: lock 2 cold identity=symbol acq=60 contended={{[0-9]+}} tryfail=0
// CHECK-DAG: cs-check hot ok
// CHECK-DAG: cs-check cold ok
#include <pthread.h>
#include <stdio.h>

#include "Inputs/spin.h"

#define THREADS 2
#define ITERS 1500

pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t cold = PTHREAD_MUTEX_INITIALIZER;
static uint64_t hot_hold[THREADS], cold_hold[THREADS], lifetime[THREADS];

static void *worker(void *arg) {
    int id = (int)(long)arg;
    uint64_t start = now_ns();
    for (int i = 0; i < ITERS; i++) {
        pthread_mutex_lock(&hot); // CHECK-DAG: site hot two_locks_ranked.c:[[@LINE]] lock 3000
        uint64_t t0 = now_ns();
        spin_ns(20000);
        hot_hold[id] += now_ns() - t0;
        pthread_mutex_unlock(&hot);
        spin_ns(5000);
        if (i % 50 == 0) {
            pthread_mutex_lock(&cold); // CHECK-DAG: site cold two_locks_ranked.c:[[@LINE]] lock 60
            t0 = now_ns();
            cold_hold[id] += now_ns() - t0;
            pthread_mutex_unlock(&cold);
        }
    }
    lifetime[id] = now_ns() - start;
    return NULL;
}

int main(int argc, char **argv) {
    uint64_t start = now_ns();
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    uint64_t total = now_ns() - start, hot_total = 0, cold_total = 0;
    for (int i = 0; i < THREADS; i++) {
        total += lifetime[i];
        hot_total += hot_hold[i];
        cold_total += cold_hold[i];
    }
    FILE *f = fopen(argc > 1 ? argv[1] : "/dev/stdout", "w");
    fprintf(f, "cs hot %.3f\ncs cold %.3f\n", 100.0 * hot_total / total, 100.0 * cold_total / total);
    fclose(f);
    return 0;
}
