// Call sites keep how they acquired: lock, trylock, timedlock. A trylock that fails and a
// timedlock that times out are counted apart and are not acquisitions.
// RUN: %cc %s -o %t
// RUN: %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// CHECK: lock 1 m identity=symbol acq=6 contended=0 tryfail=1 timeouts=1
#include <pthread.h>
#include <time.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t held, tried;

static void *other(void *arg) {
    (void)arg;
    pthread_barrier_wait(&held);
    int busy = pthread_mutex_trylock(&m); /* fails: main holds m */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 20 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    int timed_out = pthread_mutex_timedlock(&m, &ts); /* ETIMEDOUT */
    pthread_barrier_wait(&tried);
    return (void *)(long)(busy == 0 || timed_out == 0);
}

int main(void) {
    pthread_barrier_init(&held, NULL, 2);
    pthread_barrier_init(&tried, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, other, NULL);
    pthread_mutex_lock(&m); // CHECK-DAG: site m site_kinds.c:[[@LINE]] lock 1
    pthread_barrier_wait(&held);
    pthread_barrier_wait(&tried);
    pthread_mutex_unlock(&m);
    void *bad;
    pthread_join(t, &bad);
    for (int i = 0; i < 2; i++) {
        if (pthread_mutex_trylock(&m) == 0) // CHECK-DAG: site m site_kinds.c:[[@LINE]] trylock 2
            pthread_mutex_unlock(&m);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        if (pthread_mutex_timedlock(&m, &ts) == 0) // CHECK-DAG: site m site_kinds.c:[[@LINE]] timedlock 2
            pthread_mutex_unlock(&m);
    }
    pthread_mutex_lock(&m); // CHECK-DAG: site m site_kinds.c:[[@LINE]] lock 1
    pthread_mutex_unlock(&m);
    return bad != NULL;
}
