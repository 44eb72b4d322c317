// A barrier built from a mutex and a condition variable, used by N threads for R rounds, each
// arrival a delegated critical section that waits for the round to complete. Between rounds
// every thread checks that all N arrived (no thread passed early).
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t 4 300 | FileCheck %s
// RUN: env RCL_SERVERS=2 %t 5 200 | FileCheck %s --check-prefix=FIVE
// RUN: env RCL_MODE=local %t 4 300 | FileCheck %s
// CHECK: 4 threads passed 300 rounds together
// FIVE: 5 threads passed 200 rounds together
#include "Inputs/harness.h"
#include <rcl/rcl.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t round_done = PTHREAD_COND_INITIALIZER;
static int nthreads, rounds;
static int arrived;          /* protected by m */
static long generation;      /* protected by m */
static long arrivals[1000];  /* arrivals[r]: threads that arrived in round r (protected by m) */

static int barrier_wait(void *arg) {
    long r = *(long *)arg;
    long gen = generation;
    arrivals[r]++;
    if (++arrived == nthreads) {
        arrived = 0;
        generation++;
        pthread_cond_broadcast(&round_done);
        return 1;
    }
    while (gen == generation)
        rcl_cond_wait(&round_done, &m);
    return 0;
}

static int read_arrivals(void *arg) {
    return (int)arrivals[*(long *)arg];
}

static void *worker(void *arg) {
    (void)arg;
    for (long r = 0; r < rounds; r++) {
        rcl_delegate(&m, barrier_wait, &r);
        CHECK(rcl_delegate(&m, read_arrivals, &r) == nthreads); /* nobody passed early */
    }
    return NULL;
}

int main(int argc, char **argv) {
    CHECK(argc == 3);
    nthreads = atoi(argv[1]);
    rounds = atoi(argv[2]);
    CHECK(rounds <= 1000);
    run_threads(nthreads, worker);
    CHECK(generation == rounds);
    printf("%d threads passed %d rounds together\n", nthreads, rounds);
    return 0;
}
