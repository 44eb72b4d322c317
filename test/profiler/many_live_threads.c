// 2,100 threads alive at once, more than the preload's 2,048 per-thread caches: the threads
// that get none count straight into the lock record, and every acquisition is still there.
// RUN: %cc %s -o %t
// RUN: %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// CHECK: locks 1 untracked=0 threads=2101 ended_by=exit exit=0
// CHECK-NEXT: lock 1 shared_lock identity=symbol acq=4200
#include <pthread.h>
#include <stdio.h>

#define N 2100

pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t all_started;
static long count;

static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&shared_lock);
    count++;
    pthread_mutex_unlock(&shared_lock);
    pthread_barrier_wait(&all_started); /* all N alive, each holding a cache if one was left */
    pthread_mutex_lock(&shared_lock);
    count++;
    pthread_mutex_unlock(&shared_lock);
    return NULL;
}

int main(void) {
    static pthread_t t[N];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    pthread_barrier_init(&all_started, NULL, N);
    for (int i = 0; i < N; i++)
        if (pthread_create(&t[i], &attr, worker, NULL) != 0) {
            printf("pthread_create failed at thread %d\n", i);
            return 1;
        }
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    return count != 2 * N;
}
