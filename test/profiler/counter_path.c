// The per-thread counter path (perf_event_open per thread, read at acquire and release):
// exercised with the task-clock software event, which every Linux has, in place of the cache
// misses a machine without a PMU cannot count. A critical section that spins 200 us of CPU
// shows about 200,000 task-clock ns per CS in both threads' critical sections. With counters
// off, the column is n/a (never 0) and the report says why, once.
// RUN: %cc %s -o %t
// RUN: env RCL_PROF_COUNTER_EVENT=task-clock %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// RUN: %rcl-prof --no-counters -o %t.off.txt --json %t.off.json -- %t
// RUN: FileCheck %s --check-prefix=OFF < %t.off.txt
// RUN: %python %S/Inputs/profile_lines.py %t.off.json | FileCheck %s --check-prefix=OFFJSON
// CHECK: lock 1 spin_lock identity=symbol acq=40 {{.*}} misses=n/a
// CHECK: task-clock spin_lock in-range
// OFF: cache misses: n/a, disabled (RCL_PROF_COUNTERS=0 / --no-counters)
// OFF-NOT: cache misses
// OFF: 1  spin_lock {{.*}} n/a  dont
// OFFJSON: lock 1 spin_lock identity=symbol acq=40 {{.*}} misses=n/a
#include <pthread.h>
#include <time.h>

pthread_mutex_t spin_lock = PTHREAD_MUTEX_INITIALIZER;

static void spin_cpu_ns(long ns) {
    struct timespec start, now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < ns);
}

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 20; i++) {
        pthread_mutex_lock(&spin_lock);
        spin_cpu_ns(200000);
        pthread_mutex_unlock(&spin_lock);
    }
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
