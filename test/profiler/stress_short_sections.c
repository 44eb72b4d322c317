// Exact counts on the profiler's fastest path: 4 threads and main lock one mutex around a
// one-increment section from three call sites at a high rate (short sections: after their
// first 64, most acquisitions are counted before the lock call and released by unlock's fast
// path; the rest are timed, contended or both), with a recursive mutex locked twice now and
// then (never plain: it looks taken to its holder). Then main waits, exactly ROUNDS times, for
// `forced`, held by a thread that releases it only once main sleeps in the kernel, and one
// worker stays parked until the end: main's and the parked thread's counts are still in their
// thread caches when the dump is written (merged, not flushed), the other workers' were
// flushed when they exited. Every count must be exact, per call site too.
// RUN: %cc %s -o %t
// RUN: %rcl-prof --json %t.json -- %t | FileCheck --check-prefix=OUT %s
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// OUT: total 250000
// CHECK-DAG: lock {{[0-9]}} hot identity=symbol acq=250000 contended={{[0-9]+}} tryfail=0
// CHECK-DAG: lock {{[0-9]}} rec identity=symbol acq=3130 contended={{[0-9]+}} tryfail=0
// CHECK-DAG: lock {{[0-9]}} forced identity=symbol acq=40 contended=20 tryfail=0
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WORKERS 4
#define ITERS 50000 /* per thread, main included */
#define ROUNDS 20

pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t rec;
pthread_mutex_t forced = PTHREAD_MUTEX_INITIALIZER;
static long by_site[3], rec_total; /* one counter per site: no two sites' code is the same */
static pthread_barrier_t parked;
static pthread_barrier_t round_start, round_done;
static _Atomic pid_t main_tid;

/* One function per call site, so that the compiler cannot merge or hoist the lock calls. */
static __attribute__((noinline)) void site_a(void) {
    pthread_mutex_lock(&hot); // CHECK-DAG: site hot stress_short_sections.c:[[@LINE]] lock 62500
    by_site[0]++;
    pthread_mutex_unlock(&hot);
}

static __attribute__((noinline)) void site_b(void) {
    pthread_mutex_lock(&hot); // CHECK-DAG: site hot stress_short_sections.c:[[@LINE]] lock 125000
    by_site[1]++;
    pthread_mutex_unlock(&hot);
}

static __attribute__((noinline)) void site_c(void) {
    pthread_mutex_lock(&hot); // CHECK-DAG: site hot stress_short_sections.c:[[@LINE]] lock 62500
    by_site[2]++;
    pthread_mutex_unlock(&hot);
}

static void work(void) {
    for (int i = 0; i < ITERS; i++) {
        switch (i % 4) {
        case 0:
            site_a();
            break;
        case 3:
            site_c();
            break;
        default:
            site_b();
        }
        if (i % 160 == 0) {
            pthread_mutex_lock(&rec); // CHECK-DAG: site rec stress_short_sections.c:[[@LINE]] lock 1565
            pthread_mutex_lock(&rec); // CHECK-DAG: site rec stress_short_sections.c:[[@LINE]] lock 1565
            rec_total++;
            pthread_mutex_unlock(&rec);
            pthread_mutex_unlock(&rec);
        }
    }
}

/* Whether thread tid is asleep (state S): the only place it can sleep is the lock. */
static int asleep(pid_t tid) {
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] == 'S';
}

static void *worker(void *arg) {
    work();
    if (arg) { /* the parked one: still alive, its counts unflushed, when main exits */
        pthread_barrier_wait(&parked);
        for (;;)
            pause();
    }
    return NULL;
}

static void *holder(void *arg) {
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        pthread_mutex_lock(&forced);
        pthread_barrier_wait(&round_start);
        while (!asleep(atomic_load(&main_tid)))
            usleep(200);
        pthread_mutex_unlock(&forced);
        pthread_barrier_wait(&round_done);
    }
    return NULL;
}

int main(void) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rec, &attr);
    pthread_barrier_init(&parked, NULL, 2);
    pthread_barrier_init(&round_start, NULL, 2);
    pthread_barrier_init(&round_done, NULL, 2);
    atomic_store(&main_tid, (pid_t)syscall(SYS_gettid));
    pthread_t t[WORKERS], h;
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, i == 0 ? (void *)1 : NULL);
    work();
    for (int i = 1; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_wait(&parked);
    pthread_create(&h, NULL, holder, NULL);
    for (int r = 0; r < ROUNDS; r++) {
        pthread_barrier_wait(&round_start);
        pthread_mutex_lock(&forced);
        pthread_mutex_unlock(&forced);
        pthread_barrier_wait(&round_done);
    }
    pthread_join(h, NULL);
    long total = by_site[0] + by_site[1] + by_site[2];
    printf("total %ld\n", total);
    return !(total == (WORKERS + 1) * ITERS && rec_total == (WORKERS + 1) * 313);
}
