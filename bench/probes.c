/*
 * rcl-bench-probes - the physical limits next to what the runtime achieves, in one process
 * (docs/benchmarks.md):
 *
 *   pingpong     round trip of one cache line between the client CPU and the server CPU
 *   delegate     round trip of an empty delegated critical section, one client (rcl_delegate)
 *   delegate-ctx the same with a 24-byte context the section reads and writes: by pointer
 *                (rcl_delegate) and inside the request line (rcl_delegate_ctx)
 *   capacity     one driver thread keeps K mailboxes of one server full, so the server never
 *                waits: server time per request, in ns and TSC cycles; all requests for one lock
 *                (the server keeps the mutex across consecutive ones), and again with a lock
 *                per mailbox (a mutex taken and released per request: "lock_each")
 *   ffwd-rtt     round trip of an empty section through ffwd's server (bench/baselines.c), one
 *                client
 *   ffwd         the same capacity probe against ffwd's server (bench/baselines.c: K request
 *                lines, answers in shared response lines), on the same server CPU
 *   ccsynch      two threads (client CPU, server CPU) run empty critical sections through
 *                CC-Synch: the combiner's cycles per request it runs, and requests per round
 *   futex-wake   latency from FUTEX_WAKE to the woken thread running (what a parked client
 *                pays; the client spin budget RCL_SPIN_NS is chosen from it)
 *   cond-handoff two threads pass a turn back and forth through one mutex and condition
 *                variable: each pass is a critical section that waits until it is its turn,
 *                gives the turn away and signals. pthread: plain lock/wait/signal, threads on
 *                the two CPUs, and both on the client CPU; rcl: the same critical section
 *                delegated (rcl_cond_wait: the waiting section parks its servicing thread and
 *                another one serves), both threads on the client CPU (the server has the other).
 *
 * Each probe reports the median of R repetitions. Output: a readable table, or --json.
 * --pingpong runs the ping-pong alone (without starting the runtime) and prints its median in ns:
 * bench/adaptive_runs.py reads the machine's state with it around each run (a VM whose two vCPUs
 * the host places apart passes a cache line 4x slower, for seconds at a time).
 * The client runs on --client-cpu, the server on --server-cpu (RCL_SERVER_CPUS is set to it).
 */
#include "internal.h"

#include "baselines.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

static int client_cpu = 0, server_cpu = 1, reps = 5, capacity_slots = 32;
static double tsc_per_ns;
static double capacity_idle_share; /* idle server passes per request served */

static void pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    if (pthread_setaffinity_np(pthread_self(), sizeof s, &s) != 0) {
        fprintf(stderr, "rcl-bench-probes: cannot pin to CPU %d\n", cpu);
        exit(2);
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static void calibrate_tsc(void) {
    uint64_t n0 = rcl_now_ns(), c0 = __rdtsc();
    while (rcl_now_ns() - n0 < 100000000)
        ;
    tsc_per_ns = (double)(__rdtsc() - c0) / (double)(rcl_now_ns() - n0);
}

/* ---------------------------------------------------------------- ping-pong */

static _Atomic uint64_t ball __attribute__((aligned(64)));
#define PINGPONG_ROUNDS 200000

static void *pong(void *arg) {
    (void)arg;
    pin(server_cpu);
    for (uint64_t i = 1; i <= PINGPONG_ROUNDS; i++) {
        while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i - 1)
            rcl_cpu_relax();
        atomic_store_explicit(&ball, 2 * i, memory_order_release);
    }
    return NULL;
}

static double probe_pingpong(void) {
    atomic_store(&ball, 0);
    pthread_t t;
    pthread_create(&t, NULL, pong, NULL);
    uint64_t t0 = rcl_now_ns();
    for (uint64_t i = 1; i <= PINGPONG_ROUNDS; i++) {
        atomic_store_explicit(&ball, 2 * i - 1, memory_order_release);
        while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i)
            rcl_cpu_relax();
    }
    double ns = (double)(rcl_now_ns() - t0) / PINGPONG_ROUNDS;
    pthread_join(t, NULL);
    return ns;
}

/* ---------------------------------------------------------------- delegate round trip */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t cs_counter;
static int empty_cs(void *arg) {
    (void)arg;
    cs_counter++;
    return 0;
}

static double probe_delegate(void) {
    const int n = 200000;
    for (int i = 0; i < 1000; i++) /* warm: mailbox registered, lines in place */
        rcl_delegate(&lock, empty_cs, NULL);
    uint64_t t0 = rcl_now_ns();
    for (int i = 0; i < n; i++)
        rcl_delegate(&lock, empty_cs, NULL);
    return (double)(rcl_now_ns() - t0) / n;
}

/* A section with a small context on the caller's stack, as rcl-rewrite makes them: it reads
 * two inputs and writes a result. By pointer (rcl_delegate) the server reads and writes a line
 * of the caller's stack too; in the request (rcl_delegate_ctx) it touches the request line
 * only. The caller writes its inputs before each call, as a real caller does. */
struct add_ctx {
    uint64_t a, b, sum;
};
static int add_cs(void *arg) {
    struct add_ctx *c = arg;
    c->sum = c->a + c->b;
    return 0;
}
static double probe_delegate_ctx(bool in_request) {
    const int n = 200000;
    struct add_ctx c = {0, 0, 0};
    uint64_t t0 = 0;
    for (int i = -1000; i < n; i++) { /* the first 1000: warm-up, not timed */
        if (i == 0) t0 = rcl_now_ns();
        c.a = (uint64_t)i;
        c.b = 1;
        if (in_request)
            rcl_delegate_ctx(&lock, add_cs, &c, sizeof c);
        else
            rcl_delegate(&lock, add_cs, &c);
        if (c.sum != (uint64_t)i + 1) {
            fprintf(stderr, "rcl-bench-probes: wrong result from a delegated section\n");
            exit(1);
        }
    }
    return (double)(rcl_now_ns() - t0) / n;
}

/* ---------------------------------------------------------------- server capacity */

/* many: each mailbox's requests are for a lock of its own (locks[i]), so that every request
 * ends its batch (the server takes and releases a mutex per request); else all are for one
 * lock, and consecutive requests share the mutex. */
static pthread_mutex_t locks[1024];
static double probe_capacity(bool many) {
    struct rcl_mailbox *mb[1024];
    pthread_mutex_t *lk[1024];
    for (int i = 0; i < capacity_slots; i++) {
        mb[i] = rcl__mailbox_open(0);
        lk[i] = many ? &locks[i] : &lock;
    }
    const uint64_t n = 2000000;
    uint64_t done = 0, posted = 0;
    for (int i = 0; i < capacity_slots; i++, posted++)
        rcl__mailbox_post(mb[i], lk[i], empty_cs, NULL);
    struct rcl_server *s = rcl__server(0);
    uint64_t idle0 = atomic_load(&s->idle_passes), served0 = atomic_load(&s->served);
    uint64_t t0 = rcl_now_ns();
    while (done < n) {
        for (int i = 0; i < capacity_slots; i++)
            if (rcl__mailbox_answered(mb[i])) {
                done++;
                rcl__mailbox_post(mb[i], lk[i], empty_cs, NULL);
                posted++;
            }
    }
    double ns = (double)(rcl_now_ns() - t0) / (double)done;
    if (!many)
        capacity_idle_share = (double)(atomic_load(&s->idle_passes) - idle0) /
                              (double)(atomic_load(&s->served) - served0);
    while (done < posted) /* drain */
        for (int i = 0; i < capacity_slots; i++)
            if (rcl__mailbox_answered(mb[i]) && done < posted) done++;
    for (int i = 0; i < capacity_slots; i++) {
        while (!rcl__mailbox_answered(mb[i]))
            rcl_cpu_relax();
        rcl__mailbox_close(mb[i]);
    }
    return ns;
}

/* ---------------------------------------------------------------- ffwd's server capacity */

static double probe_ffwd_capacity(double *idle_share) {
    struct bl_ffwd f;
    int slot[1024];
    if (bl_ffwd_start(&f, capacity_slots, server_cpu)) {
        fprintf(stderr, "rcl-bench-probes: cannot start the ffwd server\n");
        exit(1);
    }
    for (int i = 0; i < capacity_slots; i++)
        slot[i] = bl_ffwd_client_open(&f);
    const uint64_t n = 2000000;
    uint64_t done = 0;
    for (int i = 0; i < capacity_slots; i++)
        bl_ffwd_post(&f, slot[i], empty_cs, NULL);
    uint64_t t0 = rcl_now_ns();
    while (done < n)
        for (int i = 0; i < capacity_slots; i++)
            if (bl_ffwd_answered(&f, slot[i], NULL)) {
                done++;
                bl_ffwd_post(&f, slot[i], empty_cs, NULL);
            }
    double ns = (double)(rcl_now_ns() - t0) / (double)done;
    for (int i = 0; i < capacity_slots; i++)
        while (!bl_ffwd_answered(&f, slot[i], NULL))
            rcl_cpu_relax();
    bl_ffwd_stop(&f);
    *idle_share = (double)atomic_load(&f.idle_rounds) / (double)atomic_load(&f.served);
    return ns;
}

/* Round trip of an empty critical section through ffwd's server, one client: the peer figure
 * for the delegated RTT (the same two CPUs, the same section). */
static double probe_ffwd_rtt(void) {
    const int n = 200000;
    struct bl_ffwd f;
    if (bl_ffwd_start(&f, 1, server_cpu)) {
        fprintf(stderr, "rcl-bench-probes: cannot start the ffwd server\n");
        exit(1);
    }
    int slot = bl_ffwd_client_open(&f);
    for (int i = 0; i < 1000; i++) /* warm, as probe_delegate */
        bl_ffwd_call(&f, slot, empty_cs, NULL);
    uint64_t t0 = rcl_now_ns();
    for (int i = 0; i < n; i++)
        bl_ffwd_call(&f, slot, empty_cs, NULL);
    double ns = (double)(rcl_now_ns() - t0) / n;
    bl_ffwd_stop(&f);
    return ns;
}

/* ---------------------------------------------------------------- CC-Synch combining */

static struct bl_ccsynch ccsynch;
struct cc_driver {
    int cpu, n;
};
static void *cc_thread(void *arg) {
    struct cc_driver *d = arg;
    struct bl_ccsynch_thread t;
    pin(d->cpu);
    if (bl_ccsynch_thread_init(&t)) exit(1);
    for (int i = 0; i < d->n; i++)
        bl_ccsynch_apply(&ccsynch, &t, empty_cs, NULL);
    bl_ccsynch_thread_fini(&t);
    return NULL;
}

/* Combiner cycles per request it ran; *per_round: requests per combining round; *ns_per_cs:
 * wall time per critical section of the two threads together. */
static double probe_ccsynch(double *per_round, double *ns_per_cs) {
    const int n = 500000;
    struct cc_driver d[2] = {{client_cpu, n}, {server_cpu, n}};
    pthread_t th;
    if (bl_ccsynch_init(&ccsynch, 6)) exit(1); /* H = 3 x threads, as in the micro */
    ccsynch.timed = 1;
    uint64_t t0 = rcl_now_ns();
    pthread_create(&th, NULL, cc_thread, &d[1]);
    cc_thread(&d[0]);
    pthread_join(th, NULL);
    *ns_per_cs = (double)(rcl_now_ns() - t0) / (2.0 * n);
    double combined = (double)atomic_load(&ccsynch.combined);
    *per_round = combined / (double)atomic_load(&ccsynch.rounds);
    double cycles = (double)atomic_load(&ccsynch.combine_cycles) / combined;
    bl_ccsynch_destroy(&ccsynch);
    pin(client_cpu);
    return cycles;
}

/* ---------------------------------------------------------------- futex wake latency */

static _Atomic uint32_t fword;
static _Atomic uint64_t woke_at;
static void *sleeper(void *arg) {
    int rounds = *(int *)arg;
    pin(server_cpu);
    for (int i = 0; i < rounds; i++) {
        while (atomic_load(&fword) == 0)
            rcl_futex_wait(&fword, 0, 0);
        atomic_store(&woke_at, rcl_now_ns());
        atomic_store(&fword, 0);
    }
    return NULL;
}

static double probe_futex_wake(void) {
    int rounds = 2000;
    double lat[2000];
    pthread_t t;
    atomic_store(&fword, 0);
    pthread_create(&t, NULL, sleeper, &rounds);
    for (int i = 0; i < rounds; i++) {
        struct timespec ts = {0, 200000}; /* let it fall asleep */
        nanosleep(&ts, NULL);
        atomic_store(&woke_at, 0);
        uint64_t t0 = rcl_now_ns();
        atomic_store(&fword, 1);
        rcl_futex_wake(&fword, 1);
        while (!atomic_load(&woke_at))
            rcl_cpu_relax();
        lat[i] = (double)(atomic_load(&woke_at) - t0);
        while (atomic_load(&fword) != 0)
            rcl_cpu_relax();
    }
    pthread_join(t, NULL);
    return median(lat, rounds);
}

/* ---------------------------------------------------------------- condition hand-off */

static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cond = PTHREAD_COND_INITIALIZER;
static int turn; /* protected by turn_lock */

struct turn_taker {
    int me, cpu, rounds, delegated;
};

static int take_turn(void *arg) {
    int me = *(int *)arg;
    while (turn != me)
        rcl_cond_wait(&turn_cond, &turn_lock); /* pthread_cond_wait when not on a server */
    turn = !me;
    pthread_cond_signal(&turn_cond);
    return 0;
}

static void *turn_thread(void *arg) {
    struct turn_taker *t = arg;
    pin(t->cpu);
    for (int i = 0; i < t->rounds; i++) {
        if (t->delegated) {
            rcl_delegate(&turn_lock, take_turn, &t->me);
        } else {
            pthread_mutex_lock(&turn_lock);
            take_turn(&t->me);
            pthread_mutex_unlock(&turn_lock);
        }
    }
    return NULL;
}

/* ns per hand-off (one wait satisfied by the other thread's signal). */
static double probe_cond_handoff(int delegated, int same_cpu) {
    const int rounds = delegated ? 5000 : 20000;
    struct turn_taker t[2] = {{0, client_cpu, rounds, delegated},
                              {1, same_cpu ? client_cpu : server_cpu, rounds, delegated}};
    pthread_t th[2];
    turn = 0;
    uint64_t t0 = rcl_now_ns();
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, turn_thread, &t[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    return (double)(rcl_now_ns() - t0) / (2.0 * rounds);
}

int main(int argc, char **argv) {
    int json = 0, pingpong_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--pingpong"))
            pingpong_only = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--client-cpu"))
            client_cpu = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--server-cpu"))
            server_cpu = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--reps"))
            reps = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--slots"))
            capacity_slots = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: rcl-bench-probes [--client-cpu N] [--server-cpu N] [--reps R] "
                            "[--slots K] [--json] [--pingpong]\n");
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (reps < 1 || reps > 101 || capacity_slots < 1 || capacity_slots > 1024) {
        fprintf(stderr, "rcl-bench-probes: --reps 1..101, --slots 1..1024\n");
        return 2;
    }
    if (pingpong_only) { /* the machine's state alone (bench/adaptive_runs.py): no runtime */
        pin(client_cpu);
        double pp[101];
        for (int r = 0; r < reps; r++)
            pp[r] = probe_pingpong();
        printf(json ? "{\"pingpong_rtt_ns\": %.1f}\n" : "%.1f\n", median(pp, reps));
        return 0;
    }
    char cpus[16];
    snprintf(cpus, sizeof cpus, "%d", server_cpu);
    setenv("RCL_SERVER_CPUS", cpus, 1);
    setenv("RCL_MODE", "delegate", 1);
    setenv("RCL_CLIENT_AFFINITY", "any", 1); /* the probe pins its client itself */
    pin(client_cpu);
    calibrate_tsc();
    rcl_server_count();

    double pp[101], dg[101], cap[101], fw[101], ff[101], ffi[101], cc[101], ccr[101], ccn[101];
    double dp[101], di[101], fr[101], cm[101];
    for (int r = 0; r < reps; r++) {
        pp[r] = probe_pingpong();
        dg[r] = probe_delegate();
        cap[r] = probe_capacity(false);
        ff[r] = probe_ffwd_capacity(&ffi[r]);
        cc[r] = probe_ccsynch(&ccr[r], &ccn[r]);
        /* after the others: earlier builds' figures were taken in that order */
        dp[r] = probe_delegate_ctx(false);
        di[r] = probe_delegate_ctx(true);
        fr[r] = probe_ffwd_rtt();
        cm[r] = probe_capacity(true); /* last: a new probe must not move the others' figures */
    }
    double cp[101], c1[101], cr[101];
    for (int r = 0; r < reps; r++) {
        fw[r] = probe_futex_wake();
        cp[r] = probe_cond_handoff(0, 0);
        c1[r] = probe_cond_handoff(0, 1);
        cr[r] = probe_cond_handoff(1, 1);
    }
    double pingpong = median(pp, reps), delegate = median(dg, reps), capacity = median(cap, reps),
           fwake = median(fw, reps), cond_pthread = median(cp, reps),
           cond_pthread1 = median(c1, reps), cond_rcl = median(cr, reps), ffwd = median(ff, reps),
           ffwd_idle = median(ffi, reps), cc_cycles = median(cc, reps),
           cc_round = median(ccr, reps), cc_ns = median(ccn, reps), ctx_pointer = median(dp, reps),
           ctx_inline = median(di, reps), ffwd_rtt = median(fr, reps),
           capacity_many = median(cm, reps);
    struct rcl_server *srv = rcl__server(0);
    if (json) {
        printf("{\"client_cpu\": %d, \"server_cpu\": %d, \"reps\": %d, \"tsc_per_ns\": %.3f,\n"
               " \"pingpong_rtt_ns\": %.1f, \"delegate_rtt_ns\": %.1f, \"delegate_over_pingpong\": "
               "%.2f,\n \"ffwd_rtt_ns\": %.1f, \"ffwd_rtt_over_pingpong\": %.2f,\n"
               " \"delegate_ctx_pointer_ns\": %.1f, \"delegate_ctx_in_request_ns\": %.1f,\n"
               " \"capacity_slots\": %d, \"server_ns_per_request\": %.2f, "
               "\"server_cycles_per_request\": %.1f, \"server_mrequests_s\": %.2f,\n"
               " \"server_cycles_per_request_lock_each\": %.1f,\n"
               " \"futex_wake_ns\": %.0f, \"cond_handoff_pthread_ns\": %.0f, "
               "\"cond_handoff_pthread_one_cpu_ns\": %.0f, \"cond_handoff_rcl_ns\": %.0f,\n"
               " \"blocking_detector\": %s, "
               "\"servicing_threads\": %u, \"handovers\": %lu,\n"
               " \"ffwd_server_ns_per_request\": %.2f, \"ffwd_server_cycles_per_request\": %.1f, "
               "\"ffwd_mrequests_s\": %.2f, \"ffwd_idle_rounds_per_request\": %.3f,\n"
               " \"ccsynch_combiner_cycles_per_request\": %.1f, \"ccsynch_requests_per_round\": "
               "%.2f, \"ccsynch_ns_per_cs\": %.1f}\n",
               client_cpu, server_cpu, reps, tsc_per_ns, pingpong, delegate, delegate / pingpong,
               ffwd_rtt, ffwd_rtt / pingpong, ctx_pointer, ctx_inline, capacity_slots, capacity,
               capacity * tsc_per_ns, 1e3 / capacity, capacity_many * tsc_per_ns, fwake,
               cond_pthread, cond_pthread1, cond_rcl, rcl_rt.cfg.detect_ns ? "true" : "false",
               atomic_load(&srv->nworkers), (unsigned long)atomic_load(&srv->handovers), ffwd,
               ffwd * tsc_per_ns, 1e3 / ffwd, ffwd_idle, cc_cycles, cc_round, cc_ns);
        return 0;
    }
    printf("probe                     median of %d   (client CPU %d, server CPU %d)\n", reps,
           client_cpu, server_cpu);
    printf("cache-line ping-pong RTT  %8.1f ns\n", pingpong);
    printf("delegated CS RTT          %8.1f ns   = %.2f x ping-pong\n", delegate,
           delegate / pingpong);
    printf("  with a 24-byte context  %8.1f ns by pointer, %.1f ns in the request line\n",
           ctx_pointer, ctx_inline);
    printf("ffwd round trip           %8.1f ns   = %.2f x ping-pong (one client, empty section)\n",
           ffwd_rtt, ffwd_rtt / pingpong);
    printf("server capacity           %8.2f ns/request = %.1f TSC cycles (%.2f M req/s, %d "
           "mailboxes)\n",
           capacity, capacity * tsc_per_ns, 1e3 / capacity, capacity_slots);
    printf("  (server idle passes per request during the capacity probe: %.3f)\n",
           capacity_idle_share);
    printf("  each mailbox a lock     %8.2f ns/request = %.1f TSC cycles (a mutex taken per "
           "request)\n",
           capacity_many, capacity_many * tsc_per_ns);
    printf("ffwd server capacity      %8.2f ns/request = %.1f TSC cycles (%.2f M req/s, %d "
           "request lines)\n",
           ffwd, ffwd * tsc_per_ns, 1e3 / ffwd, capacity_slots);
    printf("  (ffwd server idle rounds per request: %.3f)\n", ffwd_idle);
    printf("ccsynch combining         %8.1f TSC cycles/request run by the combiner (%.2f per "
           "round), %.1f ns per CS (2 threads)\n",
           cc_cycles, cc_round, cc_ns);
    printf("futex wake-up latency     %8.0f ns\n", fwake);
    printf("condition hand-off        %8.0f ns pthread (2 CPUs), %.0f ns pthread (1 CPU), %.0f ns "
           "delegated (rcl_cond_wait)\n",
           cond_pthread, cond_pthread1, cond_rcl);
    printf("  (blocking detector %s; %u servicing threads; %lu hand-overs)\n",
           rcl_rt.cfg.detect_ns ? "on" : "off", atomic_load(&srv->nworkers),
           (unsigned long)atomic_load(&srv->handovers));
    return 0;
}
