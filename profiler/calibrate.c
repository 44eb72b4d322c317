/*
 * rcl-prof-calibrate - the microbenchmark behind `rcl-prof calibrate`.
 *
 * After Lozi et al.'s: T threads loop { local work of D ns; a critical section of C ns that
 * reads and writes CS_LINES shared cache lines }, all on one lock. The critical section's
 * share of one thread's loop, C / (C + D), is the "% time in CS" the profiler reports for a
 * lock used that way; it is swept over PERCENTS. Each point runs the same loop once with
 * pthread_mutex_lock/unlock and once with rcl_delegate (librcl, RCL_MODE as set, delegate by
 * default), for --duration-ms each, and prints one CSV line:
 *     cs_percent,pthread_ops_s,rcl_ops_s
 * rcl-prof calibrate derives the thresholds from these lines (see docs/profiler.md).
 */
#include <pthread.h>
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CS_LINES 4
#define CS_NS    1000 /* length of one critical section */

static const double PERCENTS[] = {2, 5, 10, 15, 20, 30, 45, 60, 80};

struct shared {
    pthread_mutex_t lock;
    _Alignas(64) volatile uint64_t lines[CS_LINES][8];
};

static struct shared sh = {.lock = PTHREAD_MUTEX_INITIALIZER};
static double loops_per_ns;
static atomic_int stop;
static atomic_int ready;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void busy_loops(uint64_t n) {
    for (volatile uint64_t i = 0; i < n; i++) {
    }
}

static void calibrate_loops(void) {
    uint64_t n = 1000000, t0 = now_ns();
    busy_loops(n);
    loops_per_ns = (double)n / (double)(now_ns() - t0 + 1);
}

static int critical_section(void *ctx) {
    uint64_t loops = *(uint64_t *)ctx;
    for (int l = 0; l < CS_LINES; l++)
        sh.lines[l][0]++;
    busy_loops(loops);
    return 0;
}

struct worker {
    pthread_t thread;
    int use_rcl;
    uint64_t cs_loops, local_loops;
    uint64_t ops;
};

static void *worker_main(void *arg) {
    struct worker *w = arg;
    atomic_fetch_add(&ready, 1);
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        busy_loops(w->local_loops);
        if (w->use_rcl) {
            rcl_delegate(&sh.lock, critical_section, &w->cs_loops);
        } else {
            pthread_mutex_lock(&sh.lock);
            critical_section(&w->cs_loops);
            pthread_mutex_unlock(&sh.lock);
        }
        w->ops++;
    }
    return NULL;
}

static double run_point(int threads, double percent, int use_rcl, int duration_ms) {
    struct worker *w = calloc((size_t)threads, sizeof *w);
    if (!w) exit(1);
    double cs = CS_NS, local = cs * (100.0 - percent) / percent;
    atomic_store(&stop, 0);
    atomic_store(&ready, 0);
    for (int i = 0; i < threads; i++) {
        w[i].use_rcl = use_rcl;
        w[i].cs_loops = (uint64_t)(cs * loops_per_ns);
        w[i].local_loops = (uint64_t)(local * loops_per_ns);
        if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0) {
            fprintf(stderr, "rcl-prof-calibrate: cannot create threads\n");
            exit(1);
        }
    }
    while (atomic_load(&ready) < threads)
        usleep(100);
    uint64_t t0 = now_ns();
    usleep((useconds_t)duration_ms * 1000);
    atomic_store(&stop, 1);
    uint64_t ops = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(w[i].thread, NULL);
        ops += w[i].ops;
    }
    double secs = (double)(now_ns() - t0) / 1e9;
    free(w);
    return (double)ops / secs;
}

int main(int argc, char **argv) {
    int duration_ms = 300;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus > 1 ? (int)cpus : 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--duration-ms") == 0 && i + 1 < argc)
            duration_ms = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: rcl-prof-calibrate [--duration-ms MS] [--threads N]\n");
            return 2;
        }
    }
    if (duration_ms < 1 || threads < 1) {
        fprintf(stderr, "rcl-prof-calibrate: --duration-ms and --threads must be positive\n");
        return 2;
    }
    calibrate_loops();
    rcl_server_count(); /* start the servers before the first measured point */
    printf("# threads=%d cs_ns=%d cs_lines=%d mode=%s\n", threads, CS_NS, CS_LINES,
           rcl_mode() == RCL_MODE_LOCAL ? "local" : "delegate");
    printf("cs_percent,pthread_ops_s,rcl_ops_s\n");
    for (size_t i = 0; i < sizeof PERCENTS / sizeof PERCENTS[0]; i++) {
        double p = run_point(threads, PERCENTS[i], 0, duration_ms);
        double r = run_point(threads, PERCENTS[i], 1, duration_ms);
        printf("%g,%.0f,%.0f\n", PERCENTS[i], p, r);
        fflush(stdout);
    }
    return 0;
}
