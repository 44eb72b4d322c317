// C11 <threads.h> locks are profiled as the pthread mutexes they are (glibc calls the pthread
// functions internally, past the preload): mtx_lock, mtx_trylock, mtx_timedlock, their call
// sites at the program's lines, a cnd_wait splitting the hold, and C11's results
// (thrd_busy, thrd_timedout) unchanged under the profiler.
// RUN: %cc %s -o %t
// RUN: %t
// RUN: %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// CHECK: lock 1 m identity=symbol acq=4 contended={{[0-9]+}} tryfail=1 timeouts=1
#include <threads.h>
#include <time.h>

mtx_t m;
static cnd_t c;
static int ready;

static int other(void *arg) {
    (void)arg;
    int busy = mtx_trylock(&m); /* fails: main holds m */
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    ts.tv_nsec += 20 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    int timed_out = mtx_timedlock(&m, &ts);
    mtx_lock(&m); // CHECK-DAG: site m c11_threads.c:[[@LINE]] lock 1
    ready = 1;
    cnd_signal(&c);
    mtx_unlock(&m);
    return busy == thrd_busy && timed_out == thrd_timedout ? 0 : 1;
}

int main(void) {
    mtx_init(&m, mtx_timed);
    cnd_init(&c);
    thrd_t t;
    mtx_lock(&m); // CHECK-DAG: site m c11_threads.c:[[@LINE]] lock 1
    thrd_create(&t, other, NULL);
    struct timespec pause = {0, 60 * 1000 * 1000};
    thrd_sleep(&pause, NULL);
    mtx_unlock(&m);
    mtx_lock(&m); // CHECK-DAG: site m c11_threads.c:[[@LINE]] lock 1
    while (!ready)
        cnd_wait(&c, &m);
    mtx_unlock(&m);
    int bad;
    thrd_join(t, &bad);
    mtx_lock(&m); // CHECK-DAG: site m c11_threads.c:[[@LINE]] lock 1
    mtx_unlock(&m);
    return bad;
}
