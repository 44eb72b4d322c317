/*
 * short_section - the shape on which the profiler's cost per acquisition shows most
 * (bench/overhead.py): THREADS threads x ITERS iterations of { local work (LOCAL_LOOPS loop
 * turns); lock the one mutex; counter++; unlock }. The critical section is one increment, so
 * almost all of the program's time is lock handoffs and whatever the profiler adds to each
 * acquisition. Prints the loop's wall and CPU time (bench_clock.h); exits 1 if the counter is
 * not THREADS x ITERS (a wrapper that broke mutual exclusion would show here).
 * Usage: short_section [threads] [iterations] [local_loops]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t counter;
static long iters, local_loops;

static void *worker(void *arg) {
    (void)arg;
    for (long i = 0; i < iters; i++) {
        for (volatile long j = 0; j < local_loops; j++) {
        }
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    iters = argc > 2 ? atol(argv[2]) : 1000000;
    local_loops = argc > 3 ? atol(argv[3]) : 0;
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    if (!t || threads < 1) return 1;
    struct bench_clock t0 = bench_clock_start();
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    bench_clock_print(t0);
    free(t);
    if (counter != (uint64_t)threads * (uint64_t)iters) {
        fprintf(stderr, "short_section: counter %llu, expected %llu\n", (unsigned long long)counter,
                (unsigned long long)threads * (uint64_t)iters);
        return 1;
    }
    return 0;
}
