/*
 * rcl-bench-micro - Lozi-style lock microbenchmark (docs/benchmarks.md).
 *
 * T threads loop: D cycles of local work, then a critical section that reads and writes L
 * shared cache lines under one lock. Every lock runs in the same binary; each configuration
 * runs in a child process of its own (so RCL_MODE and the runtime's servers do not leak from
 * one configuration into the next), and the parent prints one CSV row per configuration:
 *
 *   lock,threads,delay_cycles,cs_lines,throughput_ops_s,p50_ns,p99_ns,cpu_s,wall_s,
 *   cpu_s_per_mop,joules_per_mop,little_share,big_p99_ns,little_p99_ns
 *
 * p50_ns is the median latency of one CS as the caller sees it (lock + CS + unlock, or the
 * whole rcl_delegate call), over all threads; p99_ns is the worst thread's 99th percentile, so
 * that a starved thread shows (2-core machines make pthread's mutex unfair). cpu_s is the CPU
 * time of the whole process (all threads, servers included); cpu_s_per_mop is that per
 * million critical sections (a proxy, not energy). joules_per_mop is measured with RAPL
 * (/sys/class/powercap/intel-rapl:N/energy_uj, package domains) and left empty where RAPL is
 * absent or unreadable.
 *
 * Emulated asymmetry (--little CPUS --slowdown K): a thread that is on a "little" CPU when it
 * does benchmark work does it K times slower: its local delay lasts K x D cycles, and a
 * critical section body that runs on a little CPU is timed with the TSC and followed by K-1
 * times that duration of spinning (frequency scaling slows everything, cache misses included,
 * which is what this emulates). Each operation is classed by the CPU its caller was on when it
 * started; little_share is the share of operations done by little-class callers, and the p99
 * of each class is pooled over that class's operations. The three columns are empty without
 * --little. RCL's servers go on the big CPUs (RCL_CPU_KINDS is set from --little), and so does
 * ffwd's server.
 *
 * Self-check: every line touched by the critical sections must equal the number of
 * operations, and every critical section returns its caller's id, which the caller checks
 * (so an answer delivered to the wrong client is caught). A failure exits 3 with
 * "self-check failed" on stderr, and the parent exits 1.
 *
 * Locks: pthread (glibc), tas/ticket/mcs/clh (Concurrency Kit), mutexee/ccsynch/ffwd
 * (baselines.c, ours), rcl (RCL_MODE=delegate), rcl-local (the same calls with
 * RCL_MODE=local), rcl-adaptive (RCL_MODE=adaptive), rcl-caller (RCL_MODE=delegate, each section
 * run as its caller: rcl_delegate_flags with RCL_AS_CALLER).
 */
#define _GNU_SOURCE
#include <rcl/rcl.h>

#include "baselines.h"

#include <ck_spinlock.h>
#include <errno.h>
#include <glob.h>
#include <sched.h>
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
    L_MUTEXEE,
    L_CCSYNCH,
    L_FFWD,
    L_RCL,
    L_RCL_LOCAL,
    L_RCL_ADAPTIVE,
    L_RCL_CALLER,
    L_COUNT
};
static const char *lock_names[L_COUNT] = {"pthread", "tas",       "ticket",       "mcs",
                                          "clh",     "mutexee",   "ccsynch",      "ffwd",
                                          "rcl",     "rcl-local", "rcl-adaptive", "rcl-caller"};

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
static struct bl_mutexee mutexee;
static struct bl_ccsynch ccsynch;
static struct bl_ffwd ffwd;

#define MUTEXEE_HANDOFF_CYCLES 600 /* about two cache-line transfers: time for a spinner's CAS */
#define LITTLE_BIT             0x80000000u /* a latency sample taken by a little-class caller */

static struct {
    enum lock_kind lock;
    int threads, cs_lines;
    uint64_t delay_cycles;
    double seconds;
    bool emulate, pin; /* --little given; --pin */
    double slowdown;   /* K */
    cpu_set_t allowed, little;
    uint64_t cs_cycles; /* --cs-cycles: compute inside each critical section, TSC cycles */
    cpu_set_t clients;  /* --clients-on: every benchmark thread confined there (empty: off) */
    int server_cpu;     /* ffwd's server: the highest-numbered allowed CPU that is not little */
    uint64_t mutexee_spin_ns;
    double tsc_per_ns;
} cfg;

static atomic_int go, stop, answer_mismatch;

struct cs_arg {
    int lines, id;
};

struct thread_result {
    int id;
    uint64_t ops, little_ops;
    uint32_t nsamples;
    uint32_t *samples; /* latency in ns, LITTLE_BIT set when the caller was on a little CPU */
};

static inline void spin_cycles(uint64_t cycles) {
    uint64_t t0 = __rdtsc();
    while (__rdtsc() - t0 < cycles)
        _mm_pause();
}

static inline bool on_little(void) {
    if (!cfg.emulate) return false;
    int c = sched_getcpu();
    return c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &cfg.little);
}

/* The emulated little core: work that took `cycles` there takes K times as long. */
static inline void little_penalty(uint64_t cycles) {
    spin_cycles((uint64_t)((cfg.slowdown - 1.0) * (double)cycles));
}

static int cs_body(void *arg) {
    const struct cs_arg *a = arg;
    uint64_t t0 = cfg.emulate ? __rdtsc() : 0;
    for (int i = 0; i < a->lines; i++)
        shared[i].v = shared[i].v + 1;
    if (cfg.cs_cycles) spin_cycles(cfg.cs_cycles);
    if (cfg.emulate && on_little()) little_penalty(__rdtsc() - t0);
    return a->id;
}

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void set_affinity(const cpu_set_t *set) {
    pthread_setaffinity_np(pthread_self(), sizeof *set, set);
}

/* --clients-on: every benchmark thread confined to those CPUs (the program's threads on the little
 * core, the big one lent to the servers). --pin: thread i on the i-th allowed CPU, round robin.
 * ffwd clients otherwise keep off the server's CPU when another one is allowed (the server
 * spins: ffwd gives it a core). */
static void place_worker(int id) {
    int n = CPU_COUNT(&cfg.allowed);
    cpu_set_t s;
    CPU_ZERO(&s);
    if (CPU_COUNT(&cfg.clients)) {
        set_affinity(&cfg.clients);
    } else if (cfg.pin) {
        for (int c = 0, k = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &cfg.allowed) && k++ == id % n) CPU_SET(c, &s);
        set_affinity(&s);
    } else if (cfg.lock == L_FFWD && n > 1) {
        CPU_OR(&s, &s, &cfg.allowed);
        CPU_CLR(cfg.server_cpu, &s);
        set_affinity(&s);
    }
}

static void *worker(void *arg) {
    struct thread_result *res = arg;
    struct cs_arg cs = {cfg.cs_lines, res->id};
    ck_spinlock_mcs_context_t mcs_node;
    ck_spinlock_clh_t *clh_node = malloc(sizeof *clh_node);
    struct bl_ccsynch_thread cc = {NULL};
    int slot = -1, ret = res->id;
    place_worker(res->id);
    if (cfg.lock == L_CCSYNCH && bl_ccsynch_thread_init(&cc)) abort();
    if (cfg.lock == L_FFWD && (slot = bl_ffwd_client_open(&ffwd)) < 0) abort();
    while (!atomic_load(&go))
        _mm_pause();
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        bool little = on_little();
        spin_cycles(cfg.delay_cycles); /* local work */
        if (little) little_penalty(cfg.delay_cycles);
        uint64_t t0 = now_ns();
        switch (cfg.lock) {
        case L_PTHREAD:
            pthread_mutex_lock(&mutex);
            ret = cs_body(&cs);
            pthread_mutex_unlock(&mutex);
            break;
        case L_TAS:
            ck_spinlock_fas_lock(&tas);
            ret = cs_body(&cs);
            ck_spinlock_fas_unlock(&tas);
            break;
        case L_TICKET:
            ck_spinlock_ticket_lock(&ticket);
            ret = cs_body(&cs);
            ck_spinlock_ticket_unlock(&ticket);
            break;
        case L_MCS:
            ck_spinlock_mcs_lock(&mcs, &mcs_node);
            ret = cs_body(&cs);
            ck_spinlock_mcs_unlock(&mcs, &mcs_node);
            break;
        case L_CLH:
            ck_spinlock_clh_lock(&clh, clh_node);
            ret = cs_body(&cs);
            ck_spinlock_clh_unlock(&clh_node);
            break;
        case L_MUTEXEE:
            bl_mutexee_lock(&mutexee);
            ret = cs_body(&cs);
            bl_mutexee_unlock(&mutexee);
            break;
        case L_CCSYNCH:
            ret = bl_ccsynch_apply(&ccsynch, &cc, cs_body, &cs);
            break;
        case L_FFWD:
            ret = bl_ffwd_call(&ffwd, slot, cs_body, &cs);
            break;
        case L_RCL:
        case L_RCL_LOCAL:
        case L_RCL_ADAPTIVE: /* as rcl-rewrite emits it: the 8-byte context in the request */
            ret = rcl_delegate_ctx(&mutex, cs_body, &cs, sizeof cs);
            break;
        case L_RCL_CALLER: /* a section that uses its caller's thread state (caller.c) */
            ret = rcl_delegate_flags(&mutex, cs_body, &cs, sizeof cs, RCL_AS_CALLER);
            break;
        case L_COUNT:
            break;
        }
        uint64_t dt = now_ns() - t0;
        if (ret != res->id) atomic_store(&answer_mismatch, 1);
        uint32_t sample =
            (dt >= LITTLE_BIT ? LITTLE_BIT - 1 : (uint32_t)dt) | (little ? LITTLE_BIT : 0u);
        if (res->nsamples < MAX_SAMPLES)
            res->samples[res->nsamples++] = sample;
        else /* keep a uniform-ish sample of a long run */
            res->samples[res->ops % MAX_SAMPLES] = sample;
        res->ops++;
        res->little_ops += little;
    }
    if (clh_node != &clh_unowned) /* CLH hands nodes around: the static one may end here */
        free(clh_node);           /* this one is now free */
    bl_ccsynch_thread_fini(&cc);
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

/* RAPL package energy in µJ, summed over /sys/class/powercap/intel-rapl:N (not their
 * sub-zones); false when there is none or it is unreadable (unprivileged since Linux 5.10). */
static bool rapl_read(double *uj, double *range_uj) {
    glob_t g;
    *uj = *range_uj = 0;
    if (glob("/sys/class/powercap/intel-rapl:*", 0, NULL, &g)) return false;
    int found = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        if (strchr(strchr(g.gl_pathv[i], ':') + 1, ':')) continue; /* a sub-zone */
        char path[512];
        unsigned long long e = 0, r = 0;
        snprintf(path, sizeof path, "%s/energy_uj", g.gl_pathv[i]);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int ok = fscanf(f, "%llu", &e) == 1;
        fclose(f);
        snprintf(path, sizeof path, "%s/max_energy_range_uj", g.gl_pathv[i]);
        if ((f = fopen(path, "r"))) {
            if (fscanf(f, "%llu", &r) != 1) r = 0;
            fclose(f);
        }
        if (!ok) continue;
        *uj += (double)e;
        *range_uj += (double)r;
        found++;
    }
    globfree(&g);
    return found > 0;
}

static void cpulist(const cpu_set_t *s, char *out, size_t size) {
    size_t k = 0;
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && k + 8 < size; c++)
        if (CPU_ISSET(c, s)) k += (size_t)snprintf(out + k, size - k, "%s%d", k ? "," : "", c);
}

/* Runs one configuration in this (child) process and writes its CSV row to fd. */
static void run_one(int fd) {
    if (cfg.lock == L_RCL_LOCAL)
        setenv("RCL_MODE", "local", 1);
    else if (cfg.lock == L_RCL || cfg.lock == L_RCL_CALLER)
        setenv("RCL_MODE", "delegate", 1);
    else if (cfg.lock == L_RCL_ADAPTIVE)
        setenv("RCL_MODE", "adaptive", 1);
    if (cfg.emulate) { /* the runtime puts its servers on the big kind */
        char little[512], big[512], kinds[1100];
        cpu_set_t b;
        CPU_XOR(&b, &cfg.allowed, &cfg.little);
        CPU_AND(&b, &b, &cfg.allowed);
        cpulist(&cfg.little, little, sizeof little);
        cpulist(&b, big, sizeof big);
        snprintf(kinds, sizeof kinds, "little=%s;big=%s", little, big);
        setenv("RCL_CPU_KINDS", kinds, 1);
    }
    if (cfg.lock == L_RCL || cfg.lock == L_RCL_LOCAL || cfg.lock == L_RCL_ADAPTIVE ||
        cfg.lock == L_RCL_CALLER)
        rcl_server_count(); /* start the servers before the clock starts */
    ck_spinlock_clh_init(&clh, &clh_unowned);
    bl_mutexee_init(&mutexee, (uint64_t)((double)cfg.mutexee_spin_ns * cfg.tsc_per_ns),
                    MUTEXEE_HANDOFF_CYCLES);
    if (bl_ccsynch_init(&ccsynch, 3 * cfg.threads)) abort(); /* H = 3 x threads */
    if (cfg.lock == L_FFWD && bl_ffwd_start(&ffwd, cfg.threads, cfg.server_cpu)) abort();

    pthread_t *tid = calloc((size_t)cfg.threads, sizeof *tid);
    struct thread_result *res = calloc((size_t)cfg.threads, sizeof *res);
    for (int i = 0; i < cfg.threads; i++) {
        res[i].id = i;
        res[i].samples = malloc(sizeof(uint32_t) * MAX_SAMPLES);
        pthread_create(&tid[i], NULL, worker, &res[i]);
    }
    struct rusage r0, r1;
    double uj0, uj1, range;
    bool rapl = rapl_read(&uj0, &range);
    getrusage(RUSAGE_SELF, &r0);
    uint64_t t0 = now_ns();
    atomic_store(&go, 1);
    usleep((useconds_t)(cfg.seconds * 1e6));
    atomic_store(&stop, 1);
    for (int i = 0; i < cfg.threads; i++)
        pthread_join(tid[i], NULL);
    if (cfg.lock == L_FFWD) bl_ffwd_stop(&ffwd);
    double wall = (double)(now_ns() - t0) / 1e9;
    getrusage(RUSAGE_SELF, &r1);
    rapl = rapl && rapl_read(&uj1, &range);
    double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
                 (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
                 (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 +
                 (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;

    uint64_t ops = 0, little_ops = 0;
    size_t total = 0;
    double worst_p99 = 0;
    for (int i = 0; i < cfg.threads; i++)
        total += res[i].nsamples;
    uint32_t *all = malloc(sizeof(uint32_t) * (total ? total : 1));
    uint32_t *cls[2] = {malloc(sizeof(uint32_t) * (total ? total : 1)),
                        malloc(sizeof(uint32_t) * (total ? total : 1))};
    size_t k = 0, ncls[2] = {0, 0};
    for (int i = 0; i < cfg.threads; i++) {
        ops += res[i].ops;
        little_ops += res[i].little_ops;
        for (uint32_t j = 0; j < res[i].nsamples; j++) {
            uint32_t s = res[i].samples[j], v = s & ~LITTLE_BIT;
            int c = (s & LITTLE_BIT) != 0;
            cls[c][ncls[c]++] = v;
            res[i].samples[j] = all[k++] = v;
        }
        double p99 = percentile(res[i].samples, res[i].nsamples, 0.99);
        if (p99 > worst_p99 || res[i].nsamples == 0)
            worst_p99 = res[i].nsamples ? p99 : 1e12; /* a thread that never got in: starved */
    }
    double p50 = percentile(all, total, 0.5);
    /* Self-check: every line was incremented once per operation, every answer was ours. */
    for (int i = 0; i < cfg.cs_lines; i++)
        if (shared[i].v != ops) {
            fprintf(stderr, "micro: self-check failed: %s lost updates: line %d = %lu, ops = %lu\n",
                    lock_names[cfg.lock], i, (unsigned long)shared[i].v, (unsigned long)ops);
            exit(3);
        }
    if (atomic_load(&answer_mismatch)) {
        fprintf(stderr, "micro: self-check failed: %s returned another caller's answer\n",
                lock_names[cfg.lock]);
        exit(3);
    }
    char energy[32] = "", share[32] = "", p99c[2][32] = {"", ""};
    if (rapl && ops) {
        double uj = uj1 - uj0;
        if (uj < 0) uj += range; /* the counter wrapped */
        snprintf(energy, sizeof energy, "%.4f", uj / 1e6 / ((double)ops / 1e6));
    }
    if (cfg.emulate) {
        snprintf(share, sizeof share, "%.3f", ops ? (double)little_ops / (double)ops : 0.0);
        for (int c = 0; c < 2; c++)
            if (ncls[c])
                snprintf(p99c[c], sizeof p99c[c], "%.0f", percentile(cls[c], ncls[c], 0.99));
    }
    dprintf(fd, "%s,%d,%lu,%d,%.0f,%.0f,%.0f,%.3f,%.3f,%.4f,%s,%s,%s,%s\n", lock_names[cfg.lock],
            cfg.threads, (unsigned long)cfg.delay_cycles, cfg.cs_lines, (double)ops / wall, p50,
            worst_p99, cpu, wall, ops ? cpu / ((double)ops / 1e6) : 0.0, energy, share, p99c[0],
            p99c[1]);
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

#define CSV_HEADER                                                                                 \
    "lock,threads,delay_cycles,cs_lines,throughput_ops_s,p50_ns,p99_ns,cpu_s,wall_s,"              \
    "cpu_s_per_mop,joules_per_mop,little_share,big_p99_ns,little_p99_ns"

static void usage(FILE *to) {
    fprintf(
        to,
        "usage: rcl-bench-micro [options]\n"
        "  --locks LIST     comma-separated: pthread,tas,ticket,mcs,clh,mutexee,ccsynch,ffwd,\n"
        "                   rcl,rcl-local,rcl-adaptive,rcl-caller (default: all)\n"
        "  --threads LIST   thread counts (default 2)\n"
        "  --delay LIST     local work between critical sections, in TSC cycles (default "
        "100)\n"
        "  --lines LIST     shared cache lines touched per CS (default 1,5,20; max %d)\n"
        "  --seconds S      duration of each configuration (default 1)\n"
        "  --little LIST    emulated asymmetry: CPUs declared little (comma-separated); a thread\n"
        "                   on one of them does its local work and any CS body it runs K times\n"
        "                   slower; rcl's and ffwd's servers go on the other (big) CPUs\n"
        "  --slowdown K     the little CPUs' slowdown factor, 1..100 (default 4)\n"
        "  --cs-cycles N    compute inside each critical section, in TSC cycles (default 0;\n"
        "                   K times longer on a little CPU); not a CSV column\n"
        "  --clients-on LIST  confine every benchmark thread to these CPUs (e.g. the little\n"
        "                   ones: the program on the little core, the big one lent to the\n"
        "                   servers); rcl's servers and ffwd's server stay off them\n"
        "  --pin            pin thread i to the i-th allowed CPU, round robin (default: unpinned;\n"
        "                   rcl's runtime moves a client pinned to its server CPU, with a "
        "warning)\n"
        "  --mutexee-spin-ns N  mutexee's spin before parking (default 20000, about the futex\n"
        "                   wake-up round trip rcl-bench-probes measures on the reference VM)\n"
        "  --no-header      do not print the CSV header\n"
        "Prints CSV: " CSV_HEADER "\n"
        "(p99_ns is the worst thread's p99; cpu_s counts every thread, servers included;\n"
        " cpu_s_per_mop = CPU-seconds per million CS, a proxy, not energy; joules_per_mop from\n"
        " RAPL, empty where RAPL is absent; the last three only with --little)\n"
        "Exits 1 when a configuration fails, e.g. its self-check (\"self-check failed\").\n",
        MAX_LINES);
}

static double calibrate_tsc(void) {
    uint64_t n0 = now_ns(), c0 = __rdtsc();
    while (now_ns() - n0 < 20000000)
        ;
    return (double)(__rdtsc() - c0) / (double)(now_ns() - n0);
}

int main(int argc, char **argv) {
    long threads[32] = {2}, delays[32] = {100}, lines[32] = {1, 5, 20}, little[64], clients[64];
    int nthreads = 1, ndelays = 1, nlines = 3, nlittle = 0, nclients = 0, header = 1;
    bool use[L_COUNT];
    for (int i = 0; i < L_COUNT; i++)
        use[i] = true;
    cfg.seconds = 1.0;
    cfg.slowdown = 4.0;
    cfg.mutexee_spin_ns = 20000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--no-header")) {
            header = 0;
        } else if (!strcmp(a, "--pin")) {
            cfg.pin = true;
        } else if (v && !strcmp(a, "--threads")) {
            nthreads = parse_list(v, threads, 32, 1, 1024), i++;
        } else if (v && !strcmp(a, "--delay")) {
            ndelays = parse_list(v, delays, 32, 0, 100000000), i++;
        } else if (v && !strcmp(a, "--lines")) {
            nlines = parse_list(v, lines, 32, 0, MAX_LINES), i++;
        } else if (v && !strcmp(a, "--little")) {
            nlittle = parse_list(v, little, 64, 0, CPU_SETSIZE - 1), i++;
            if (nlittle == 0) nlittle = -1;
        } else if (v && !strcmp(a, "--cs-cycles")) {
            long n[1] = {0};
            if (parse_list(v, n, 1, 0, 100000000) != 1) nthreads = -1;
            cfg.cs_cycles = (uint64_t)n[0], i++;
        } else if (v && !strcmp(a, "--clients-on")) {
            nclients = parse_list(v, clients, 64, 0, CPU_SETSIZE - 1), i++;
            if (nclients == 0) nclients = -1;
        } else if (v && !strcmp(a, "--slowdown")) {
            cfg.slowdown = atof(v), i++;
            if (!(cfg.slowdown >= 1 && cfg.slowdown <= 100)) nthreads = -1;
        } else if (v && !strcmp(a, "--mutexee-spin-ns")) {
            long n[1] = {0};
            if (parse_list(v, n, 1, 0, 100000000) != 1) nthreads = -1;
            cfg.mutexee_spin_ns = (uint64_t)n[0], i++;
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
        if (nthreads < 0 || ndelays < 0 || nlines < 0 || nlittle < 0 || nclients < 0) {
            fprintf(stderr, "rcl-bench-micro: bad value for %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    sched_getaffinity(0, sizeof cfg.allowed, &cfg.allowed);
    CPU_ZERO(&cfg.little);
    for (int i = 0; i < nlittle; i++) {
        if (!CPU_ISSET((int)little[i], &cfg.allowed)) {
            fprintf(stderr, "rcl-bench-micro: --little: CPU %ld is not allowed to this process\n",
                    little[i]);
            return 2;
        }
        CPU_SET((int)little[i], &cfg.little);
    }
    CPU_ZERO(&cfg.clients);
    for (int i = 0; i < nclients; i++) {
        if (!CPU_ISSET((int)clients[i], &cfg.allowed)) {
            fprintf(stderr,
                    "rcl-bench-micro: --clients-on: CPU %ld is not allowed to this process\n",
                    clients[i]);
            return 2;
        }
        CPU_SET((int)clients[i], &cfg.clients);
    }
    cfg.emulate = nlittle > 0;
    cfg.server_cpu = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &cfg.allowed) && !CPU_ISSET(c, &cfg.little) && !CPU_ISSET(c, &cfg.clients))
            cfg.server_cpu = c;
    if (cfg.server_cpu < 0) {
        fprintf(stderr, "rcl-bench-micro: --little leaves no big CPU for the servers\n");
        return 2;
    }
    cfg.tsc_per_ns = calibrate_tsc();
    if (header) printf(CSV_HEADER "\n");
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
                    fflush(stdout);
                    pid_t pid = fork();
                    if (pid == 0) {
                        run_one(STDOUT_FILENO);
                        if (getenv("RCL_STATS")) exit(0); /* librcl prints its report at exit */
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
