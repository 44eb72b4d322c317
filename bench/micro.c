/*
 * rcl-bench-micro - Lozi-style lock microbenchmark (docs/benchmarks.md).
 *
 * T threads loop: D cycles of local work, then a critical section that reads and writes L
 * shared cache lines under one lock. Every lock runs in the same binary; each configuration
 * runs in a child process of its own (so RCL_MODE and the runtime's servers do not leak from
 * one configuration into the next), and the parent prints one CSV row per configuration:
 *
 *   lock,threads,delay_cycles,cs_lines,throughput_ops_s,p50_ns,p99_ns,cpu_s,wall_s
 *
 * p50_ns is the median latency of one CS as the caller sees it (lock + CS + unlock, or the
 * whole rcl_delegate call), over all threads; p99_ns is the worst thread's 99th percentile, so
 * that a starved thread shows (2-core machines make pthread's mutex unfair). cpu_s is the CPU
 * time of the whole process (all threads, servers included): an energy proxy without RAPL.
 *
 * Locks: pthread (glibc), tas/ticket/mcs/clh (Concurrency Kit), rcl (RCL_MODE=delegate),
 * rcl-local (the same calls with RCL_MODE=local), rcl-adaptive (RCL_MODE=adaptive).
 */
#define _GNU_SOURCE
#include <rcl/rcl.h>

#include <ck_spinlock.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define LINE        64
#define MAX_LINES   64
#define MAX_SAMPLES 200000

enum lock_kind {
    L_PTHREAD,
    L_TAS,
    L_TICKET,
    L_MCS,
    L_CLH,
    L_RCL,
    L_RCL_LOCAL,
    L_RCL_ADAPTIVE,
    L_COUNT
};
static const char *lock_names[L_COUNT] = {"pthread", "tas", "ticket",    "mcs",
                                          "clh",     "rcl", "rcl-local", "rcl-adaptive"};

struct line {
    volatile uint64_t v;
    char pad[LINE - sizeof(uint64_t)];
} __attribute__((aligned(LINE)));

static struct line shared[MAX_LINES];
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static ck_spinlock_fas_t tas = CK_SPINLOCK_FAS_INITIALIZER;
static ck_spinlock_ticket_t ticket = CK_SPINLOCK_TICKET_INITIALIZER;
static ck_spinlock_mcs_t mcs = CK_SPINLOCK_MCS_INITIALIZER;
static ck_spinlock_clh_t *clh;
static ck_spinlock_clh_t clh_unowned;

static struct {
    enum lock_kind lock;
    int threads, cs_lines;
    uint64_t delay_cycles;
    double seconds;
} cfg;

static atomic_int go, stop;

struct thread_result {
    uint64_t ops;
    uint32_t nsamples;
    uint32_t *samples; /* latency in ns */
};

static int cs_body(void *arg) {
    int lines = *(int *)arg;
    for (int i = 0; i < lines; i++)
        shared[i].v = shared[i].v + 1;
    return 0;
}

static inline void delay(uint64_t cycles) {
    uint64_t t0 = __rdtsc();
    while (__rdtsc() - t0 < cycles)
        _mm_pause();
}

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg) {
    struct thread_result *res = arg;
    int lines = cfg.cs_lines;
    ck_spinlock_mcs_context_t mcs_node;
    ck_spinlock_clh_t *clh_node = malloc(sizeof *clh_node);
    while (!atomic_load(&go))
        _mm_pause();
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        delay(cfg.delay_cycles);
        uint64_t t0 = now_ns();
        switch (cfg.lock) {
        case L_PTHREAD:
            pthread_mutex_lock(&mutex);
            cs_body(&lines);
            pthread_mutex_unlock(&mutex);
            break;
        case L_TAS:
            ck_spinlock_fas_lock(&tas);
            cs_body(&lines);
            ck_spinlock_fas_unlock(&tas);
            break;
        case L_TICKET:
            ck_spinlock_ticket_lock(&ticket);
            cs_body(&lines);
            ck_spinlock_ticket_unlock(&ticket);
            break;
        case L_MCS:
            ck_spinlock_mcs_lock(&mcs, &mcs_node);
            cs_body(&lines);
            ck_spinlock_mcs_unlock(&mcs, &mcs_node);
            break;
        case L_CLH:
            ck_spinlock_clh_lock(&clh, clh_node);
            cs_body(&lines);
            ck_spinlock_clh_unlock(&clh_node);
            break;
        case L_RCL:
        case L_RCL_LOCAL:
        case L_RCL_ADAPTIVE:
            rcl_delegate(&mutex, cs_body, &lines);
            break;
        case L_COUNT:
            break;
        }
        uint64_t dt = now_ns() - t0;
        if (res->nsamples < MAX_SAMPLES)
            res->samples[res->nsamples++] = dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;
        else /* keep a uniform-ish sample of a long run */
            res->samples[res->ops % MAX_SAMPLES] = dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;
        res->ops++;
    }
    free(clh_node); /* CLH hands nodes around: this one is now free */
    return NULL;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static double percentile(uint32_t *v, size_t n, double p) {
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_u32);
    size_t i = (size_t)(p * (double)(n - 1));
    return v[i];
}

/* Runs one configuration in this (child) process and writes its CSV row to fd. */
static void run_one(int fd) {
    if (cfg.lock == L_RCL_LOCAL)
        setenv("RCL_MODE", "local", 1);
    else if (cfg.lock == L_RCL)
        setenv("RCL_MODE", "delegate", 1);
    else if (cfg.lock == L_RCL_ADAPTIVE)
        setenv("RCL_MODE", "adaptive", 1);
    if (cfg.lock == L_RCL || cfg.lock == L_RCL_LOCAL || cfg.lock == L_RCL_ADAPTIVE)
        rcl_server_count(); /* start the servers before the clock starts */
    ck_spinlock_clh_init(&clh, &clh_unowned);

    pthread_t *tid = calloc((size_t)cfg.threads, sizeof *tid);
    struct thread_result *res = calloc((size_t)cfg.threads, sizeof *res);
    for (int i = 0; i < cfg.threads; i++) {
        res[i].samples = malloc(sizeof(uint32_t) * MAX_SAMPLES);
        pthread_create(&tid[i], NULL, worker, &res[i]);
    }
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    uint64_t t0 = now_ns();
    atomic_store(&go, 1);
    usleep((useconds_t)(cfg.seconds * 1e6));
    atomic_store(&stop, 1);
    for (int i = 0; i < cfg.threads; i++)
        pthread_join(tid[i], NULL);
    double wall = (double)(now_ns() - t0) / 1e9;
    getrusage(RUSAGE_SELF, &r1);
    double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
                 (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
                 (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 +
                 (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;

    uint64_t ops = 0;
    size_t total = 0;
    double worst_p99 = 0;
    for (int i = 0; i < cfg.threads; i++) {
        ops += res[i].ops;
        total += res[i].nsamples;
        double p99 = percentile(res[i].samples, res[i].nsamples, 0.99);
        if (p99 > worst_p99 || res[i].nsamples == 0)
            worst_p99 = res[i].nsamples ? p99 : 1e12; /* a thread that never got in: starved */
    }
    uint32_t *all = malloc(sizeof(uint32_t) * (total ? total : 1));
    size_t k = 0;
    for (int i = 0; i < cfg.threads; i++) {
        memcpy(all + k, res[i].samples, sizeof(uint32_t) * res[i].nsamples);
        k += res[i].nsamples;
    }
    double p50 = percentile(all, total, 0.5);
    /* The CS data must be consistent: every line was incremented once per operation. */
    for (int i = 0; i < cfg.cs_lines; i++)
        if (shared[i].v != ops) {
            fprintf(stderr, "micro: %s lost updates: line %d = %lu, ops = %lu\n",
                    lock_names[cfg.lock], i, (unsigned long)shared[i].v, (unsigned long)ops);
            exit(3);
        }
    dprintf(fd, "%s,%d,%lu,%d,%.0f,%.0f,%.0f,%.3f,%.3f\n", lock_names[cfg.lock], cfg.threads,
            (unsigned long)cfg.delay_cycles, cfg.cs_lines, (double)ops / wall, p50, worst_p99, cpu,
            wall);
}

static int parse_list(const char *s, long *out, int max, long lo, long hi) {
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        errno = 0;
        long v = strtol(tok, &end, 10);
        if (errno || *end || v < lo || v > hi || n == max) {
            free(copy);
            return -1;
        }
        out[n++] = v;
    }
    free(copy);
    return n;
}

static void usage(FILE *to) {
    fprintf(
        to,
        "usage: rcl-bench-micro [options]\n"
        "  --locks LIST     comma-separated: pthread,tas,ticket,mcs,clh,rcl,rcl-local,rcl-adaptive "
        "(default: all)\n"
        "  --threads LIST   thread counts (default 2)\n"
        "  --delay LIST     local work between critical sections, in TSC cycles (default "
        "100)\n"
        "  --lines LIST     shared cache lines touched per CS (default 1,5,20; max %d)\n"
        "  --seconds S      duration of each configuration (default 1)\n"
        "  --no-header      do not print the CSV header\n"
        "Prints CSV: lock,threads,delay_cycles,cs_lines,throughput_ops_s,p50_ns,p99_ns,"
        "cpu_s,wall_s\n"
        "(p99_ns is the worst thread's p99; cpu_s counts every thread, servers included)\n",
        MAX_LINES);
}

int main(int argc, char **argv) {
    long threads[32] = {2}, delays[32] = {100}, lines[32] = {1, 5, 20};
    int nthreads = 1, ndelays = 1, nlines = 3, header = 1;
    bool use[L_COUNT];
    for (int i = 0; i < L_COUNT; i++)
        use[i] = true;
    cfg.seconds = 1.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--no-header")) {
            header = 0;
        } else if (v && !strcmp(a, "--threads")) {
            nthreads = parse_list(v, threads, 32, 1, 1024), i++;
        } else if (v && !strcmp(a, "--delay")) {
            ndelays = parse_list(v, delays, 32, 0, 100000000), i++;
        } else if (v && !strcmp(a, "--lines")) {
            nlines = parse_list(v, lines, 32, 0, MAX_LINES), i++;
        } else if (v && !strcmp(a, "--seconds")) {
            cfg.seconds = atof(v), i++;
            if (cfg.seconds <= 0 || cfg.seconds > 3600) nthreads = -1;
        } else if (v && !strcmp(a, "--locks")) {
            for (int k = 0; k < L_COUNT; k++)
                use[k] = false;
            char *copy = strdup(v), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int k = 0;
                while (k < L_COUNT && strcmp(t, lock_names[k]))
                    k++;
                if (k == L_COUNT) {
                    fprintf(stderr, "rcl-bench-micro: unknown lock '%s'\n", t);
                    usage(stderr);
                    return 2;
                }
                use[k] = true;
            }
            free(copy);
            i++;
        } else {
            fprintf(stderr, "rcl-bench-micro: bad argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (nthreads < 0 || ndelays < 0 || nlines < 0) {
            fprintf(stderr, "rcl-bench-micro: bad value for %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (header)
        printf("lock,threads,delay_cycles,cs_lines,throughput_ops_s,p50_ns,p99_ns,cpu_s,wall_s\n");
    fflush(stdout);
    int failures = 0;
    for (int l = 0; l < L_COUNT; l++)
        for (int t = 0; t < nthreads; t++)
            for (int d = 0; d < ndelays; d++)
                for (int c = 0; c < nlines; c++) {
                    if (!use[l]) continue;
                    cfg.lock = (enum lock_kind)l;
                    cfg.threads = (int)threads[t];
                    cfg.delay_cycles = (uint64_t)delays[d];
                    cfg.cs_lines = (int)lines[c];
                    pid_t pid = fork();
                    if (pid == 0) {
                        run_one(STDOUT_FILENO);
                        _exit(0);
                    }
                    int status;
                    waitpid(pid, &status, 0);
                    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
                        fprintf(stderr, "rcl-bench-micro: %s with %ld threads failed\n",
                                lock_names[l], threads[t]);
                        failures++;
                    }
                }
    return failures ? 1 : 0;
}
