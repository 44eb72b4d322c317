/*
 * rcl-bench-neighbours - a program beside N busy processes (docs/benchmarks.md,
 * "rcl-bench-neighbours"): what shared machines, CI runners and containers with CPU quotas do
 * to a converted program, and to its server.
 *
 * The program is a queue served by several threads, as a client library's tests run it
 * (../shared/cases/delegate_beside_busy_neighbours): --producers threads loop
 * `lock; n++; unlock; usleep(--pause-us)`, and the main thread does --pops timed pops of
 * --pop-ms each (a section that waits on a condition variable with a timeout for an item that
 * never comes), measuring how long each took; the run lasts as long as the pops, 2 s by
 * default. Written once, run as the original (pthread: pthread_mutex_lock +
 * pthread_cond_timedwait) and converted (rcl_delegate + rcl_cond_timedwait, what rcl-rewrite
 * emits) in RCL_MODE=delegate (rcl), local (rcl-local) and adaptive (rcl-adaptive), each in a
 * child process of its own.
 *
 * --busy N starts N CPU-bound processes (a loop, at the program's niceness) before the first
 * configuration and kills them after the last; they die with the benchmark (PR_SET_PDEATHSIG)
 * if it is killed.
 *
 * One CSV row per configuration:
 *   busy,lock,producers,wall_s,sections,sections_per_s,worst_pop_ms,late_pops,server_preempted_pct
 * sections: the producers' sections done during the run; worst_pop_ms: the longest timed pop;
 * late_pops: pops that took more than twice --pop-ms; server_preempted_pct (rcl only, from its
 * RCL_STATS=json): of the time the server's threads wanted their CPU, the part they waited for
 * it (empty for the others).
 * Self-check: the count the producers' sections reached equals the sections they report.
 */
#define _GNU_SOURCE
#include <rcl/rcl.h>

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum lock_kind { L_PTHREAD, L_RCL, L_RCL_LOCAL, L_RCL_ADAPTIVE, L_COUNT };
static const char *lock_names[L_COUNT] = {"pthread", "rcl", "rcl-local", "rcl-adaptive"};
static const char *modes[L_COUNT] = {NULL, "delegate", "local", "adaptive"};

static struct {
    enum lock_kind lock;
    int producers, pops, pop_ms, pause_us, busy;
} cfg = {L_PTHREAD, 8, 20, 100, 200, 0};

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcond = PTHREAD_COND_INITIALIZER;
static long qlen, produced, stop;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The one place where the original and the converted program differ. */
static int section(int (*fn)(void *), void *ctx) {
    if (cfg.lock != L_PTHREAD) return rcl_delegate(&qlock, fn, ctx);
    pthread_mutex_lock(&qlock);
    int r = fn(ctx);
    pthread_mutex_unlock(&qlock);
    return r;
}

static int produce_cs(void *arg) { /* returns 1 when told to stop */
    (void)arg;
    if (stop) return 1;
    produced++;
    return 0;
}

static void *producer(void *arg) {
    long *mine = arg;
    while (section(produce_cs, NULL) == 0) {
        ++*mine;
        usleep((useconds_t)cfg.pause_us);
    }
    return NULL;
}

static int pop_cs(void *arg) { /* waits for an item that never comes, until the deadline */
    const struct timespec *abs = arg;
    int r = 0;
    while (qlen == 0 && r == 0)
        r = cfg.lock == L_PTHREAD ? pthread_cond_timedwait(&qcond, &qlock, abs)
                                  : rcl_cond_timedwait(&qcond, &qlock, abs);
    if (qlen > 0) qlen--;
    return r;
}

static int stop_cs(void *arg) {
    (void)arg;
    stop = 1;
    return 0;
}

static int run_one(void) {
    char stats[64] = "";
    if (modes[cfg.lock]) setenv("RCL_MODE", modes[cfg.lock], 1);
    if (cfg.lock == L_RCL) { /* delegate mode enters the library at every call anyway */
        snprintf(stats, sizeof stats, "/tmp/rcl-bench-neighbours.%d.json", (int)getpid());
        char env[80];
        snprintf(env, sizeof env, "json:%s", stats);
        setenv("RCL_STATS", env, 1);
    }
    pthread_t th[256];
    long done[256] = {0};
    int n = cfg.producers;
    double t0 = now_s(), worst = 0;
    int late = 0;
    for (int i = 0; i < n; i++)
        pthread_create(&th[i], NULL, producer, &done[i]);
    for (int i = 0; i < cfg.pops; i++) {
        struct timespec abs;
        clock_gettime(CLOCK_REALTIME, &abs);
        abs.tv_nsec += (long)cfg.pop_ms * 1000000L;
        abs.tv_sec += abs.tv_nsec / 1000000000L;
        abs.tv_nsec %= 1000000000L;
        double s = now_s();
        section(pop_cs, &abs);
        double d = (now_s() - s) * 1000;
        if (d > worst) worst = d;
        if (d > 2.0 * cfg.pop_ms) late++;
    }
    section(stop_cs, NULL);
    long sum = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        sum += done[i];
    }
    double wall = now_s() - t0;
    if (sum != produced) {
        fprintf(stderr, "rcl-bench-neighbours: self-check failed (%s: %ld sections, count %ld)\n",
                lock_names[cfg.lock], sum, produced);
        return 3;
    }
    printf("%d,%s,%d,%.3f,%ld,%.0f,%.1f,%d,", cfg.busy, lock_names[cfg.lock], n, wall, sum,
           (double)sum / wall, worst, late);
    fflush(stdout);
    return stats[0] ? 10 : 0; /* 10: the parent reads the statistics after exit */
}

/* RCL_STATS=json of a child: its server's preempted share, printed as the last column. */
static void print_preempted(pid_t pid) {
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/tmp/rcl-bench-neighbours.%d.json", (int)pid);
    FILE *f = fopen(path, "r");
    size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    unlink(path);
    buf[len] = '\0';
    const char *r = strstr(buf, "\"ran_ns\": "), *w = strstr(buf, "\"preempted_ns\": ");
    double ran = r ? strtod(r + 10, NULL) : 0, waited = w ? strtod(w + 16, NULL) : 0;
    if (ran + waited > 0)
        printf("%.1f\n", 100.0 * waited / (ran + waited));
    else
        printf("\n");
}

static pid_t busy_pids[64];

static void busy_start(void) {
    for (int i = 0; i < cfg.busy; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the benchmark */
            if (getppid() == 1) _exit(0);
            for (volatile unsigned long x = 0;; x++)
                ;
        }
        busy_pids[i] = pid;
    }
    if (cfg.busy) usleep(200000); /* let the scheduler spread them */
}

static void busy_stop(void) {
    for (int i = 0; i < cfg.busy; i++)
        if (busy_pids[i] > 0) kill(busy_pids[i], SIGKILL);
    for (int i = 0; i < cfg.busy; i++)
        if (busy_pids[i] > 0) waitpid(busy_pids[i], NULL, 0);
}

static void usage(void) {
    fprintf(stderr,
            "usage: rcl-bench-neighbours [options]\n"
            "  --locks LIST     pthread,rcl,rcl-local,rcl-adaptive (default all)\n"
            "  --busy N         CPU-bound processes beside the program, 0..64 (default 0)\n"
            "  --producers N    threads doing lock; n++; unlock; usleep, 1..256 (default 8)\n"
            "  --pause-us N     their usleep between sections (default 200)\n"
            "  --pops N         timed pops of the main thread (default 20)\n"
            "  --pop-ms N       each pop's timeout (default 100): the run lasts pops x pop-ms\n"
            "  --no-header      do not print the CSV header\n");
}

int main(int argc, char **argv) {
    const char *locks = "pthread,rcl,rcl-local,rcl-adaptive";
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
        if (!strcmp(a, "--locks"))
            locks = v;
        else if (!strcmp(a, "--busy"))
            cfg.busy = atoi(v);
        else if (!strcmp(a, "--producers"))
            cfg.producers = atoi(v);
        else if (!strcmp(a, "--pause-us"))
            cfg.pause_us = atoi(v);
        else if (!strcmp(a, "--pops"))
            cfg.pops = atoi(v);
        else if (!strcmp(a, "--pop-ms"))
            cfg.pop_ms = atoi(v);
        else {
            usage();
            return 2;
        }
    }
    if (cfg.busy < 0 || cfg.busy > 64 || cfg.producers < 1 || cfg.producers > 256 ||
        cfg.pause_us < 0 || cfg.pops < 1 || cfg.pop_ms < 1) {
        usage();
        return 2;
    }
    if (header)
        printf("busy,lock,producers,wall_s,sections,sections_per_s,worst_pop_ms,late_pops,"
               "server_preempted_pct\n");
    fflush(stdout);
    int failed = 0;
    char lbuf[128];
    snprintf(lbuf, sizeof lbuf, "%s", locks);
    busy_start();
    for (char *ls = NULL, *l = strtok_r(lbuf, ",", &ls); l; l = strtok_r(NULL, ",", &ls)) {
        int k = 0;
        while (k < L_COUNT && strcmp(lock_names[k], l))
            k++;
        if (k == L_COUNT) {
            busy_stop();
            usage();
            return 2;
        }
        cfg.lock = (enum lock_kind)k;
        pid_t pid = fork();
        if (pid < 0) {
            failed = 1;
            break;
        }
        if (pid == 0) exit(run_one()); /* exit: RCL_STATS writes at exit */
        int status;
        waitpid(pid, &status, 0);
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (code == 10)
            print_preempted(pid);
        else if (code == 0)
            printf("\n");
        else
            failed = 1;
        fflush(stdout);
    }
    busy_stop();
    return failed;
}
