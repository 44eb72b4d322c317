// rcl-prof --count-every N (RCL_PROF_COUNT_EVERY): one pthread_mutex_lock call in N recorded, on
// average, with the weight of the calls it stands for. 4 threads lock `hot` from two call sites,
// one in four calls from site_a; a recursive mutex is locked twice (the outer or the inner call
// may be the one passed on); `held` is held by main while a worker takes it, so that some of its
// acquisitions are contended. The estimates (sampled_check.py): each site within 5 % of its true
// count (about 8 standard deviations here), and `hot`'s total; the sum over all locks never
// above the truth and short of it by no more than the calls after each thread's last recorded
// one (a recorded call stands for those of any lock before it); no contention for the recursive
// mutex (its holder locking it again is not contention), whose hold ends at its outer release
// (5 us after the inner one), not at a release that leaves it held; hold time measured on the recorded
// sections; and the report says the counts are estimates. Exact mode is unchanged: the same program without
// --count-every gives exact counts.
// RUN: %cc %s -o %t
// RUN: %rcl-prof --count-every 16 --json %t.json -- %t 2>&1 | FileCheck --check-prefix=OUT %s
// RUN: %python %S/Inputs/sampled_check.py %t.json 16
// RUN: %rcl-prof --json %t-exact.json -- %t > /dev/null
// RUN: %python %S/Inputs/sampled_check.py %t-exact.json 1
// RUN: not %rcl-prof --count-every 0 -- %t 2>&1 | FileCheck --check-prefix=BAD %s
// OUT: total 800000
// OUT: counts: estimated, one pthread_mutex_lock call in 16 recorded on average (--count-every)
// BAD: argument --count-every: expected a whole number from 1 to 1048576, got '0'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define WORKERS 4
#define ITERS 200000 /* per worker */

pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t rec;
pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static long a_count, b_count, rec_count, held_count;

static void spin_us(long us) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < us * 1000L);
}

static __attribute__((noinline)) void site_a(void) {
    pthread_mutex_lock(&hot);
    a_count++;
    pthread_mutex_unlock(&hot);
}

static __attribute__((noinline)) void site_b(void) {
    pthread_mutex_lock(&hot);
    b_count++;
    pthread_mutex_unlock(&hot);
}

static void *worker(void *arg) {
    long id = (long)arg;
    for (long i = 0; i < ITERS; i++) {
        if (i % 4 == 0)
            site_a();
        else
            site_b();
        if (id == 0 && i % 64 == 0) {
            pthread_mutex_lock(&rec);
            pthread_mutex_lock(&rec);
            rec_count++;
            pthread_mutex_unlock(&rec);
            spin_us(5); /* still held: the outer hold lasts at least this long */
            pthread_mutex_unlock(&rec);
        }
        if (id == 1 && i % 1000 == 0) {
            pthread_mutex_lock(&held);
            held_count++;
            pthread_mutex_unlock(&held);
        }
    }
    return NULL;
}

int main(void) {
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rec, &a);
    pthread_t t[WORKERS];
    for (long i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int k = 0; k < 50; k++) { /* hold `held` now and then while worker 1 may want it */
        pthread_mutex_lock(&held);
        for (volatile int j = 0; j < 20000; j++) {
        }
        pthread_mutex_unlock(&held);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    printf("total %ld\n", a_count + b_count);
    return a_count + b_count == (long)WORKERS * ITERS && rec_count == (ITERS + 63) / 64 ? 0 : 1;
}
