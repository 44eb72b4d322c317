/*
 * rcl-bench-cond - critical sections that wait on a condition variable (docs/benchmarks.md,
 * "rcl-bench-cond"): the two shapes of real programs where adaptive mode lost to both the
 * original and RCL_MODE=delegate (issue 24), as converted code runs them.
 *
 *   pool  a thread pool written the way event-loop libraries write it (libuv's threadpool.c):
 *         one "loop" thread submits jobs into a work queue (a section on wq_lock that signals
 *         wq_cond when a worker is idle); W workers wait for work on wq_cond *inside* their
 *         section, take a job, run it outside (--work cycles), put it on a done queue (a
 *         section on done_lock) and write an eventfd; the loop reads the eventfd, drains the
 *         done queue (a section on done_lock) and submits again, keeping --inflight jobs out.
 *         --inflight 1 is libuv's queue_work benchmark (one job ping-pongs loop <-> worker).
 *   pc    a bounded producer/consumer queue (--queue slots): P producers' section waits on
 *         not_full, pushes and signals not_empty; C consumers' section waits on not_empty,
 *         pops and signals not_full; --work cycles of local work between sections.
 *
 * Locks: pthread (the original program: pthread_mutex_lock + pthread_cond_wait), rcl
 * (RCL_MODE=delegate), rcl-local (RCL_MODE=local), rcl-adaptive (RCL_MODE=adaptive): the
 * converted program (rcl_delegate + rcl_cond_wait, what rcl-rewrite emits). Each
 * configuration runs in a child process of its own. One CSV row per configuration:
 *
 *   shape,lock,threads,inflight,work_cycles,throughput_ops_s,wall_s
 *
 * threads: W (pool) or P+C (pc, P = C = threads / 2); throughput: jobs (pool) or items (pc)
 * completed per second. Self-check: every job submitted is completed exactly once and every
 * item pushed is popped exactly once, in order; a mismatch exits 3 ("self-check failed").
 */
#define _GNU_SOURCE
#include <rcl/rcl.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define QCAP 1024 /* ring capacity, both shapes (pc uses --queue of it) */

enum lock_kind { L_PTHREAD, L_RCL, L_RCL_LOCAL, L_RCL_ADAPTIVE, L_COUNT };
static const char *lock_names[L_COUNT] = {"pthread", "rcl", "rcl-local", "rcl-adaptive"};
static const char *modes[L_COUNT] = {NULL, "delegate", "local", "adaptive"};

static struct {
    enum lock_kind lock;
    int threads, inflight, queue;
    uint64_t work;
    double seconds;
} cfg = {L_PTHREAD, 4, 1, 64, 1000, 0.5};

static atomic_int stop;

static inline void spin_cycles(uint64_t cycles) {
    uint64_t t0 = __rdtsc();
    while (__rdtsc() - t0 < cycles)
        _mm_pause();
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The one place where the original and the converted program differ: a section runs between
 * pthread_mutex_lock/unlock and waits with pthread_cond_wait, or is delegated and waits with
 * rcl_cond_wait. */
static int section(pthread_mutex_t *m, int (*fn)(void *), void *ctx) {
    if (cfg.lock != L_PTHREAD) return rcl_delegate(m, fn, ctx);
    pthread_mutex_lock(m);
    int r = fn(ctx);
    pthread_mutex_unlock(m);
    return r;
}

static void cwait(pthread_cond_t *c, pthread_mutex_t *m) {
    if (cfg.lock == L_PTHREAD)
        pthread_cond_wait(c, m);
    else
        rcl_cond_wait(c, m);
}

struct ring {
    uint64_t head, tail; /* head: next to pop; tail: next to push */
    uint64_t v[QCAP];
};

static void push(struct ring *r, uint64_t x) {
    r->v[r->tail++ % QCAP] = x;
}
static uint64_t pop(struct ring *r) {
    return r->v[r->head++ % QCAP];
}
static uint64_t len(const struct ring *r) {
    return r->tail - r->head;
}

/* ------------------------------------------------------------------------- pool */

static pthread_mutex_t wq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wq_cond = PTHREAD_COND_INITIALIZER;
static struct ring wq;
static int idle_workers;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ring doneq;
static int efd;

static int submit_cs(void *arg) { /* libuv's post() */
    push(&wq, *(uint64_t *)arg);
    if (idle_workers > 0) pthread_cond_signal(&wq_cond);
    return 0;
}

static int take_cs(void *arg) { /* libuv's worker(): waits for work inside the section */
    while (len(&wq) == 0 && !atomic_load_explicit(&stop, memory_order_relaxed)) {
        idle_workers++;
        cwait(&wq_cond, &wq_lock);
        idle_workers--;
    }
    if (len(&wq) == 0) return -1; /* stopping */
    *(uint64_t *)arg = pop(&wq);
    return 0;
}

static int done_cs(void *arg) {
    push(&doneq, *(uint64_t *)arg);
    return 0;
}

struct drain {
    uint64_t jobs[QCAP];
    int n;
};

static int drain_cs(void *arg) {
    struct drain *d = arg;
    d->n = 0;
    while (len(&doneq))
        d->jobs[d->n++] = pop(&doneq);
    return d->n;
}

static int wake_all_cs(void *arg) {
    (void)arg;
    pthread_cond_broadcast(&wq_cond);
    return 0;
}

static void *pool_worker(void *arg) {
    (void)arg;
    for (;;) {
        uint64_t job;
        if (section(&wq_lock, take_cs, &job) < 0) return NULL;
        spin_cycles(cfg.work); /* the job */
        section(&done_lock, done_cs, &job);
        uint64_t one = 1;
        if (write(efd, &one, sizeof one) != sizeof one) abort(); /* uv_async_send */
    }
}

/* The loop thread; returns the jobs completed. */
static uint64_t pool_loop(void) {
    uint64_t next = 0, done = 0, out = 0;
    static struct drain d;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        while (out < (uint64_t)cfg.inflight) {
            section(&wq_lock, submit_cs, &next);
            next++;
            out++;
        }
        uint64_t n;
        if (read(efd, &n, sizeof n) != sizeof n) abort(); /* epoll_wait + the async */
        section(&done_lock, drain_cs, &d);
        for (int i = 0; i < d.n; i++)
            if (d.jobs[i] >= next) return UINT64_MAX; /* never submitted */
        out -= (uint64_t)d.n;
        done += (uint64_t)d.n;
    }
    section(&wq_lock, wake_all_cs, NULL);
    /* self-check: every job submitted but the `out` still running came back, once */
    if (done + out != next) return UINT64_MAX;
    return done;
}

/* --------------------------------------------------------------------------- pc */

static pthread_mutex_t pc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static struct ring pcq;
static uint64_t produced; /* under pc_lock: the next item's number */
static uint64_t consumed; /* under pc_lock: items popped; each must equal its number */
static atomic_int order_broken;

static int produce_cs(void *arg) {
    (void)arg;
    while (len(&pcq) >= (uint64_t)cfg.queue && !atomic_load_explicit(&stop, memory_order_relaxed))
        cwait(&not_full, &pc_lock);
    if (len(&pcq) >= (uint64_t)cfg.queue) return -1;
    push(&pcq, produced++);
    pthread_cond_signal(&not_empty);
    return 0;
}

static int consume_cs(void *arg) {
    (void)arg;
    while (len(&pcq) == 0 && !atomic_load_explicit(&stop, memory_order_relaxed))
        cwait(&not_empty, &pc_lock);
    if (len(&pcq) == 0) return -1;
    if (pop(&pcq) != consumed++) atomic_store(&order_broken, 1);
    pthread_cond_signal(&not_full);
    return 0;
}

static int pc_wake_all_cs(void *arg) {
    (void)arg;
    pthread_cond_broadcast(&not_full);
    pthread_cond_broadcast(&not_empty);
    return 0;
}

static void *producer(void *arg) {
    (void)arg;
    while (section(&pc_lock, produce_cs, NULL) == 0)
        spin_cycles(cfg.work);
    return NULL;
}

static void *consumer(void *arg) {
    (void)arg;
    while (section(&pc_lock, consume_cs, NULL) == 0)
        spin_cycles(cfg.work);
    return NULL;
}

/* ------------------------------------------------------------------------ driver */

static void *timer(void *arg) { /* arg: non-NULL for pc, whose waiters the timer wakes */
    struct timespec ts = {(time_t)cfg.seconds,
                          (long)((cfg.seconds - (double)(time_t)cfg.seconds) * 1e9)};
    nanosleep(&ts, NULL);
    atomic_store(&stop, 1);
    if (arg) section(&pc_lock, pc_wake_all_cs, NULL);
    return NULL;
}

static int run_one(const char *shape) {
    if (modes[cfg.lock]) setenv("RCL_MODE", modes[cfg.lock], 1);
    int n = cfg.threads < 1 ? 1 : cfg.threads;
    pthread_t th[256], tm;
    double t0 = now_s();
    uint64_t ops;
    if (!strcmp(shape, "pool")) {
        efd = eventfd(0, EFD_CLOEXEC);
        if (efd < 0) return 2;
        for (int i = 0; i < n; i++)
            pthread_create(&th[i], NULL, pool_worker, NULL);
        pthread_create(&tm, NULL, timer, NULL);
        ops = pool_loop();
        for (int i = 0; i < n; i++)
            pthread_join(th[i], NULL);
        pthread_join(tm, NULL);
    } else {
        int p = n / 2 < 1 ? 1 : n / 2, c = n - p < 1 ? 1 : n - p;
        for (int i = 0; i < p; i++)
            pthread_create(&th[i], NULL, producer, NULL);
        for (int i = 0; i < c; i++)
            pthread_create(&th[p + i], NULL, consumer, NULL);
        pthread_create(&tm, NULL, timer, (void *)"pc");
        for (int i = 0; i < p + c; i++)
            pthread_join(th[i], NULL);
        pthread_join(tm, NULL);
        ops = consumed;
        if (order_broken || produced - consumed != len(&pcq)) ops = UINT64_MAX;
    }
    double wall = now_s() - t0;
    if (ops == UINT64_MAX) {
        fprintf(stderr, "rcl-bench-cond: self-check failed (%s, %s)\n", shape,
                lock_names[cfg.lock]);
        return 3;
    }
    printf("%s,%s,%d,%d,%llu,%.0f,%.3f\n", shape, lock_names[cfg.lock], n,
           !strcmp(shape, "pool") ? cfg.inflight : cfg.queue, (unsigned long long)cfg.work,
           (double)ops / wall, wall);
    fflush(stdout);
    return 0;
}

static void usage(void) {
    fprintf(stderr,
            "usage: rcl-bench-cond [options]\n"
            "  --shapes LIST    pool,pc (default both)\n"
            "  --locks LIST     pthread,rcl,rcl-local,rcl-adaptive (default all)\n"
            "  --threads N      pool: workers; pc: producers + consumers, half each "
            "(default 4)\n"
            "  --inflight N     pool: jobs the loop keeps submitted, 1..%d (default 1: libuv's\n"
            "                   queue_work benchmark)\n"
            "  --queue N        pc: queue slots, 1..%d (default 64)\n"
            "  --work CYCLES    pool: a job's work; pc: local work between sections, TSC cycles\n"
            "                   (default 1000)\n"
            "  --seconds S      duration of each configuration (default 0.5)\n"
            "  --no-header      do not print the CSV header\n"
            "Prints CSV: shape,lock,threads,inflight,work_cycles,throughput_ops_s,wall_s\n"
            "(inflight: the pool's jobs in flight, or pc's queue slots). Exits 1 when a\n"
            "configuration fails, e.g. its self-check (\"self-check failed\").\n",
            QCAP / 2, QCAP);
}

int main(int argc, char **argv) {
    const char *shapes = "pool,pc", *locks = "pthread,rcl,rcl-local,rcl-adaptive";
    bool header = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-header")) {
            header = false;
            continue;
        }
        if (!v) {
            usage();
            return 2;
        }
        i++;
        if (!strcmp(a, "--shapes"))
            shapes = v;
        else if (!strcmp(a, "--locks"))
            locks = v;
        else if (!strcmp(a, "--threads"))
            cfg.threads = atoi(v);
        else if (!strcmp(a, "--inflight"))
            cfg.inflight = atoi(v);
        else if (!strcmp(a, "--queue"))
            cfg.queue = atoi(v);
        else if (!strcmp(a, "--work"))
            cfg.work = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--seconds"))
            cfg.seconds = atof(v);
        else {
            usage();
            return 2;
        }
    }
    if (cfg.threads < 1 || cfg.threads > 256 || cfg.inflight < 1 || cfg.inflight > QCAP / 2 ||
        cfg.queue < 1 || cfg.queue > QCAP || !(cfg.seconds > 0)) {
        usage();
        return 2;
    }
    if (header) printf("shape,lock,threads,inflight,work_cycles,throughput_ops_s,wall_s\n");
    fflush(stdout);
    int failed = 0;
    char sbuf[64], lbuf[128];
    snprintf(sbuf, sizeof sbuf, "%s", shapes);
    for (char *ss = NULL, *s = strtok_r(sbuf, ",", &ss); s; s = strtok_r(NULL, ",", &ss)) {
        snprintf(lbuf, sizeof lbuf, "%s", locks);
        for (char *ls = NULL, *l = strtok_r(lbuf, ",", &ls); l; l = strtok_r(NULL, ",", &ls)) {
            int k = 0;
            while (k < L_COUNT && strcmp(lock_names[k], l))
                k++;
            if (k == L_COUNT || (strcmp(s, "pool") && strcmp(s, "pc"))) {
                usage();
                return 2;
            }
            cfg.lock = (enum lock_kind)k;
            pid_t pid = fork();
            if (pid < 0) return 2;
            if (pid == 0) exit(run_one(s)); /* exit: RCL_STATS prints at exit */
            int status;
            waitpid(pid, &status, 0);
            if (!WIFEXITED(status) || WEXITSTATUS(status)) failed = 1;
        }
    }
    return failed;
}
