// Hammer the bookkeeping: 4 threads lock 256 shared mutexes in a pseudo-random order from two
// call sites each (far more (mutex, site) pairs than a thread's 64 cache entries, so entries
// are evicted and flushed all the time), while each thread also initialises, locks and
// destroys private mutexes over and over (every destroy invalidates all threads' cached
// records). Every count must come out exact.
// RUN: %cc %s -o %t
// RUN: %rcl-prof --json %t.json --json-max-locks 0 -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// CHECK: sum shared acq=200000 private acq=40000 private-locks=4000
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define SHARED 256
#define ITERS 50000
#define PRIVATE_ROUNDS 1000

pthread_mutex_t shared[SHARED];
static long counts[SHARED];

static void *worker(void *arg) {
    unsigned x = (unsigned)(long)arg * 2654435761u + 1;
    for (int i = 0; i < ITERS; i++) {
        x = x * 1103515245u + 12345u;
        unsigned k = (x >> 8) % SHARED;
        if (x & 1) {
            pthread_mutex_lock(&shared[k]);
            counts[k]++;
            pthread_mutex_unlock(&shared[k]);
        } else {
            pthread_mutex_lock(&shared[k]);
            counts[k] += 2;
            pthread_mutex_unlock(&shared[k]);
        }
        if (i % (ITERS / PRIVATE_ROUNDS) == 0) {
            pthread_mutex_t mine;
            pthread_mutex_init(&mine, NULL);
            for (int j = 0; j < 10; j++) {
                pthread_mutex_lock(&mine);
                pthread_mutex_unlock(&mine);
            }
            pthread_mutex_destroy(&mine);
        }
    }
    return NULL;
}

int main(void) {
    for (int k = 0; k < SHARED; k++)
        pthread_mutex_init(&shared[k], NULL);
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    long total = 0;
    for (int k = 0; k < SHARED; k++)
        total += counts[k];
    printf("%ld\n", total);
    return 0;
}
