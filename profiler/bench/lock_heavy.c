/*
 * lock_heavy - a benchmark the profiler's overhead is measured on (bench/overhead.py).
 *
 * THREADS threads x ITERS iterations of { local work (LOCAL_LOOPS loop turns); lock one of
 * NLOCKS mutexes; read and write CS_LINES shared cache lines; unlock }: a program that spends
 * its time acquiring and releasing locks, contended and not. Prints the loop's wall and CPU
 * time (bench_clock.h).
 * Usage: lock_heavy [threads] [iterations] [local_loops]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"

#define NLOCKS   4
#define CS_LINES 2

static struct {
    pthread_mutex_t lock;
    _Alignas(64) volatile uint64_t lines[CS_LINES][8];
} slot[NLOCKS];

static long iters, local_loops;

static void *worker(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (long i = 0; i < iters; i++) {
        for (volatile long j = 0; j < local_loops; j++) {
        }
        seed = seed * 1103515245u + 12345u;
        int k = (int)((seed >> 16) % NLOCKS);
        pthread_mutex_lock(&slot[k].lock);
        for (int l = 0; l < CS_LINES; l++)
            slot[k].lines[l][0]++;
        pthread_mutex_unlock(&slot[k].lock);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    iters = argc > 2 ? atol(argv[2]) : 1000000;
    local_loops = argc > 3 ? atol(argv[3]) : 50;
    for (int k = 0; k < NLOCKS; k++)
        pthread_mutex_init(&slot[k].lock, NULL);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    if (!t || threads < 1) return 1;
    struct bench_clock t0 = bench_clock_start();
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    bench_clock_print(t0);
    free(t);
    return 0;
}
