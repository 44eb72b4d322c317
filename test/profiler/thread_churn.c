// Thread churn: 2,000 short-lived threads, created and joined 100 at a time, each locking one
// shared mutex 10 times. Every acquisition is counted and every thread's lifetime is in the
// thread time (threads = 2,000 + main).
// RUN: %cc %s -o %t
// RUN: %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// CHECK: locks 1 untracked=0 threads=2001 ended_by=exit exit=0
// CHECK-NEXT: lock 1 counter_lock identity=symbol acq=20000
#include <pthread.h>
#include <stdio.h>

#define BATCHES 20
#define PER_BATCH 100
#define LOCKS_PER_THREAD 10

pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < LOCKS_PER_THREAD; i++) {
        pthread_mutex_lock(&counter_lock);
        counter++;
        pthread_mutex_unlock(&counter_lock);
    }
    return NULL;
}

int main(void) {
    pthread_t t[PER_BATCH];
    for (int b = 0; b < BATCHES; b++) {
        for (int i = 0; i < PER_BATCH; i++)
            if (pthread_create(&t[i], NULL, worker, NULL) != 0)
                return 1;
        for (int i = 0; i < PER_BATCH; i++)
            pthread_join(t[i], NULL);
    }
    printf("%ld\n", counter);
    return counter != BATCHES * PER_BATCH * LOCKS_PER_THREAD;
}
