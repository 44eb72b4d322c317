/*
 * internal.h - data structures shared by the runtime's files. Not installed.
 *
 * config.c     reads the environment once into struct rcl_config (with one-line warnings).
 * placement.c  asks hwloc for core kinds and NUMA nodes and chooses the server CPUs.
 * mailbox.c    mailbox slots: allocation per (client thread, server), reuse on thread exit.
 * pass.c       one pass over a server's mailboxes: take, run and answer requests, wake parked
 *              clients (its design comment explains the mailbox protocol).
 * preempt.c    how much of a server's time its CPU gave other threads (the kernel's per-thread
 *              scheduler statistics): for the adaptive policy and RCL_STATS.
 * server.c     a server's threads (the workers' life): the polling loop that runs passes,
 *              parking, the fork pause, the servicing-thread pool, the polling role and its
 *              hand-over, the blocking detector (its design comment explains that protocol).
 *              It calls pass.c; pass.c never calls it.
 * wait.c       a client waiting for its answer: spin knowing its core, park, take a request back
 *              from a server without a poller; the client's part of cond.c's cancellation.
 * cond.c       rcl_cond_wait and friends, and the cancellation of a client whose section waits
 *              (its design comment explains that protocol; the client's part runs in wait.c).
 * stats.c      RCL_STATS: what the servers did, printed at exit.
 * delegate.c   start-up, lock-to-server mapping, the client side of rcl_delegate, modes,
 *              nesting, fork.
 */
#ifndef RCL_INTERNAL_H
#define RCL_INTERNAL_H

#include "arch.h"

#include <rcl/prof_hooks.h>
#include <rcl/rcl.h>

#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RCL_HIDDEN __attribute__((visibility("hidden")))
/* Thread-local variables of the runtime: the initial-exec model, so that librcl's code (built
 * position-independent for librcl.so) reads them with one instruction, not a __tls_get_addr
 * call on every critical section. librcl is loaded at start-up (linked), not dlopen'ed. */
#define RCL_TLS __thread __attribute__((tls_model("initial-exec")))

/* RCL_SANITIZED: librcl is built with a sanitizer, whose runtime keeps per-thread state of its
 * own (caller.c) and may run threads of its own (server.c's orphaned()). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RCL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define RCL_SANITIZED 1
#endif
#endif
#ifndef RCL_SANITIZED
#define RCL_SANITIZED 0
#endif

/* ------------------------------------------------------------------ configuration */

#define RCL_MAX_SERVERS 256

enum rcl_client_affinity { RCL_AFFINITY_AUTO, RCL_AFFINITY_EXCLUDE, RCL_AFFINITY_ANY };
enum rcl_stats_out { RCL_STATS_OFF, RCL_STATS_TEXT, RCL_STATS_JSON };

/* Hysteresis of the adaptive policy: the other path must be this many percent cheaper. */
#define RCL_ADAPTIVE_MARGIN 10

struct rcl_config {
    enum rcl_mode mode;
    int nservers;
    int nserver_cpus; /* 0: choose with placement.c */
    int server_cpus[RCL_MAX_SERVERS];
    const char *cpu_kinds;    /* RCL_CPU_KINDS as given, validated by placement.c */
    const char *lock_servers; /* RCL_LOCK_SERVERS as given, resolved by delegate.c */
    enum rcl_client_affinity client_affinity;
    uint64_t spin_ns;         /* client spin before parking */
    bool wait_spin_only;      /* RCL_CLIENT_WAIT=spin: never yield a shared core (comparisons) */
    uint64_t server_spin_ns;  /* idle server spin before parking */
    int pool_max;             /* servicing threads per server, at most */
    int pool_spare;           /* idle spares a server keeps */
    uint64_t pool_idle_ns;    /* a spare beyond pool_spare exits after this long idle */
    uint64_t detect_ns;       /* blocking detector's period; 0: no detector */
    uint64_t local_wait_ns;   /* a request blocked by a local holder this long is waited for */
    int adaptive_flip;        /* RCL_ADAPTIVE_FLIP: test knob (adaptive.c); 0: off */
    bool no_as_caller;        /* RCL_AS_CALLER=0: run such sections in their callers (caller.c) */
    const char *adaptive_log; /* RCL_ADAPTIVE_LOG=FILE: every decision, one line (adaptive.c) */
    /* a machine described instead of this one (rcl-info --topology/--synthetic); NULL: this */
    const char *topology_xml, *topology_synthetic;
    enum rcl_stats_out stats; /* RCL_STATS: what to print at exit (stats.c) */
    const char *stats_file;   /* RCL_STATS=json:FILE */
};

/* Parse the environment into *cfg. Malformed values print one line on stderr and keep the
 * default. Never fails. */
RCL_HIDDEN void rcl_config_load(struct rcl_config *cfg);

/* Print "rcl: <fmt>\n" on stderr in one write. */
RCL_HIDDEN void rcl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
RCL_HIDDEN _Noreturn void rcl_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------------ placement */

struct rcl_kind_desc {
    int efficiency; /* hwloc's rank: higher is faster; -1 unknown */
    char name[32];  /* CoreType info, declared name, or "kind<N>" */
    char cpus[256]; /* list string, e.g. "0-3,8" */
};

struct rcl_placement {
    hwloc_topology_t topo; /* NULL when hwloc failed: servers are not pinned */
    int nservers;
    int server_cpus[RCL_MAX_SERVERS]; /* OS index of the PU each server is pinned to; -1 none */
    cpu_set_t allowed;                /* PUs this process may use */
    cpu_set_t client_set;             /* allowed minus server PUs: where clients go when excluded */
    bool exclude_clients;
    bool step_clients;    /* adaptive mode, clients not excluded: a thread steps off the servers'
                             cores while a lock it calls delegates (placement.c, "Stepping off") */
    char clients_why[96]; /* adaptive mode with RCL_CLIENT_AFFINITY=auto: why (rcl-info) */
    int ncores, npus, nnuma;
    int nkinds;
    bool kinds_declared; /* kinds come from RCL_CPU_KINDS */
    struct rcl_kind_desc kinds[8];
    /* How the server CPUs were chosen, for rcl-info. Long enough for the longest message,
     * placement.c's "fastest core kind '<name>' (<cpus>), ..." with a kind's whole name and CPU
     * list (32 + 256 + 56 bytes): GCC checks the snprintf. */
    char why[384];
};

/* Discover the topology and choose nservers server CPUs per cfg. Never fails: without hwloc
 * the servers run unpinned and the reason is in pl->why. */
RCL_HIDDEN void rcl_placement_init(struct rcl_placement *pl, const struct rcl_config *cfg);
/* Write set as a CPU list ("0-3,8") into buf. */
RCL_HIDDEN void rcl_cpuset_list(const cpu_set_t *set, char *buf, size_t len);
/* Release what rcl_placement_init allocated. */
RCL_HIDDEN void rcl_placement_fini(struct rcl_placement *pl);
/* Bind the calling thread to one PU (OS index). Returns 0 or -1. */
RCL_HIDDEN int rcl_placement_bind_self(const struct rcl_placement *pl, int cpu);
/* Keep the calling (client) thread off the server cores when so configured and when the
 * thread's affinity was not chosen by the program itself. */
RCL_HIDDEN void rcl_placement_client_register(const struct rcl_placement *pl);
/* Adaptive mode (pl->step_clients): move the calling thread off the servers' cores (returns
 * false, and moves nothing, where the program chose the thread's CPUs), or back onto every
 * allowed CPU (where it is still where rcl_placement_step_off put it). */
RCL_HIDDEN bool rcl_placement_step_off(const struct rcl_placement *pl);
RCL_HIDDEN void rcl_placement_step_on(const struct rcl_placement *pl);
/* A thread's first adaptive call: one that inherited a stepped-off thread's CPUs at its
 * creation is put back on every allowed CPU. */
RCL_HIDDEN void rcl_placement_step_inherited(const struct rcl_placement *pl);

/* ------------------------------------------------------------------ mailboxes */

/*
 * One request slot, owned by one (client thread, server) pair: one cache line, which carries
 * everything a request and its answer need -- the section, its lock, errno, the result and the
 * context itself when it is small (rcl_delegate_ctx) -- so that a request costs the server that
 * one line. What only the slow paths touch (the cancellation of a condition wait, profiling,
 * allocation) is in the slot's struct rcl_mailbox_slow, in the same chunk (rcl_slow). Field
 * ownership is explained at the top of pass.c; the cancellation fields (wait, wait_cond) at the
 * top of cond.c.
 */
/* RCL_CTX_INLINE_MAX (rcl.h): the bytes of context that travel inside the request line */
struct rcl_mailbox {
    _Atomic(rcl_cs_fn) fn;   /* client: posts (release); server: clears on answer (release);
                                client: withdraws while its server has no poller (server.c) */
    pthread_mutex_t *lock;   /* client, before posting */
    int ret;                 /* server, before clearing fn */
    int err;                 /* errno: client before posting, server before clearing fn */
    uint16_t status;         /* enum rcl_answer: server (or withdrawing client), before fn = NULL */
    uint16_t ctx_size;       /* client, before posting: its RCL_CTX_SIZE bits: 0, the context
                                is ctx.ptr; else its size, and the context is ctx.bytes (copied
                                in and out); RCL_CTX_AS_CALLER: run the section as the client
                                (caller.c), whose thread pointer is rcl_slow(mb)->tp;
                                RCL_CTX_TIMED: a timed request, which its client may withdraw
                                until the server claims it (pass.c, "Timed requests") */
    _Atomic uint32_t parked; /* client: 1 before futex-waiting; server: 0 and wake */
    union {
        void *ptr;
        _Alignas(16) unsigned char bytes[RCL_CTX_INLINE_MAX];
    } ctx; /* client, before posting; the section writes bytes on the server */
} __attribute__((aligned(RCL_CACHE_LINE)));

#define RCL_CTX_SIZE      0x3fffu
#define RCL_CTX_TIMED     0x4000u
#define RCL_CTX_AS_CALLER 0x8000u

_Static_assert(offsetof(struct rcl_mailbox, ctx) + RCL_CTX_INLINE_MAX == RCL_CACHE_LINE &&
                   sizeof(struct rcl_mailbox) == RCL_CACHE_LINE,
               "a mailbox is one cache line, its context room included");

/* What of a slot only the slow paths touch: its own line (no false sharing between clients). */
struct rcl_mailbox_slow {
    uint64_t cs_ns;            /* server, before clearing fn, when profiling */
    pthread_cond_t *wait_cond; /* server, before wait = RCL_WAIT_WAITING (cond.c) */
    _Atomic uint32_t wait;     /* cancellation of a section waiting on a condition (cond.c) */
    int tid;                   /* the owning client's kernel thread id (allocation) */
    uintptr_t tp;              /* the owning client's thread pointer, 0 when sections cannot
                                  run as their caller here (allocation; caller.c) */
    _Atomic uint16_t in_use;   /* slot allocated to a client (registration lock) */
    _Atomic uint32_t claim;    /* a timed request's enum rcl_claim (pass.c, "Timed requests") */
    clockid_t clock;           /* a timed request's deadline: client, before posting */
    struct timespec deadline;
} __attribute__((aligned(RCL_CACHE_LINE)));

/* Who has a timed request (mailbox slow claim; pass.c, "Timed requests"). */
enum rcl_claim {
    RCL_CLAIM_POSTED = 1,    /* posted, claimed by nobody: the client may withdraw it */
    RCL_CLAIM_TAKEN = 2,     /* a server thread has it: it runs it, or answers why not */
    RCL_CLAIM_WITHDRAWN = 3, /* the client gave up at its deadline: the server drops it */
};

/* mailbox wait: a delegated section waiting on a condition, and its client's cancellation. */
enum rcl_wait_state {
    RCL_WAIT_NONE = 0,    /* no cancellable condition wait */
    RCL_WAIT_WAITING = 1, /* the section waits on wait_cond (servicing thread) */
    RCL_WAIT_CLIENT = 2,  /* the client waits with asynchronous cancellation enabled */
    RCL_WAIT_RESUME = 3,  /* the section woke up: the client must leave that state */
    RCL_WAIT_CANCEL = 4,  /* the client was cancelled: the section is abandoned */
};

/* How a request was answered (mailbox status). */
enum rcl_answer {
    RCL_ANSWER_RAN = 0,       /* the server ran it: ret and err are the section's */
    RCL_ANSWER_HAND_BACK = 1, /* not run: the caller runs it itself under the mutex (pass.c) */
    RCL_ANSWER_CANCELLED = 2, /* abandoned in a condition wait: its client is being cancelled */
    RCL_ANSWER_TIMEDOUT = 3,  /* a timed request whose mutex the server did not get by its
                                 deadline: not run, ret is the timed lock's error */
    RCL_ANSWER_DROPPED = 4,   /* a withdrawn timed request, cleared: nobody reads the answer */
};

/* The timed lock that a timed request stands for: pthread_mutex_timedlock on CLOCK_REALTIME
 * (what the program called, and what a profiler interposes), pthread_mutex_clocklock else. */
static inline int rcl_timed_lock(pthread_mutex_t *lock, clockid_t clock,
                                 const struct timespec *abstime) {
    return clock == CLOCK_REALTIME ? pthread_mutex_timedlock(lock, abstime)
                                   : pthread_mutex_clocklock(lock, clock, abstime);
}

#define RCL_CHUNK_SLOTS 64
/* Chunks are aligned to their size rounded up to a power of two, so that a slot finds its slow
 * part from its own address (rcl_slow). */
#define RCL_CHUNK_ALIGN 16384

/* Slots come in chunks that are never freed while the process lives, so a server may read a
 * slot whose client has gone; slots are reused by later threads. The request lines are
 * contiguous: a scan reads nothing else. */
struct rcl_chunk {
    struct rcl_mailbox slot[RCL_CHUNK_SLOTS];
    struct rcl_mailbox_slow slow[RCL_CHUNK_SLOTS];
    struct rcl_chunk *_Atomic next;
    /* the poller's own: since when each slot's request finds its mutex held locally (0: it
     * does not), for the bounded wait against local holders (pass.c) */
    uint64_t busy_since[RCL_CHUNK_SLOTS] __attribute__((aligned(RCL_CACHE_LINE)));
};
_Static_assert(sizeof(struct rcl_chunk) <= RCL_CHUNK_ALIGN, "a chunk within its alignment");

static inline struct rcl_mailbox_slow *rcl_slow(struct rcl_mailbox *mb) {
    struct rcl_chunk *c = (struct rcl_chunk *)((uintptr_t)mb & ~(uintptr_t)(RCL_CHUNK_ALIGN - 1));
    return &c->slow[mb - c->slot];
}

/* ------------------------------------------------------------------ servers */

#define RCL_MAX_NEST   16
#define RCL_POOL_LIMIT 1024 /* largest RCL_POOL_MAX */

/* A small lock for the pool's slow paths (not a pthread mutex: the profiler would report it as
 * one of the program's locks). Acquire/release atomics, futex when contended. */
typedef struct {
    _Atomic uint32_t word; /* 0 free, 1 held, 2 held with waiters */
} rcl_spin_t;
RCL_HIDDEN void rcl_spin_lock(rcl_spin_t *l);
RCL_HIDDEN void rcl_spin_unlock(rcl_spin_t *l);

struct rcl_server;
struct rcl_pass;

/* One servicing thread of a server (server.c). Exactly one per server polls at a time. */
struct rcl_worker {
    struct rcl_server *s;
    int id;
    _Atomic int tid; /* its kernel thread id, once it runs (0 before) */
    /* written by the worker, read by the blocking detector (relaxed; see server.c) */
    struct rcl_mailbox *_Atomic cur; /* top-level request being run, NULL between requests */
    _Atomic uint64_t ncs;            /* requests started */
    /* set under pool_lock by whoever takes the polling role away; read by the worker after
     * each critical section */
    _Atomic uint32_t lost;
    _Atomic uint32_t wake;       /* futex: a spare is woken with 1 when it becomes the poller */
    struct rcl_mailbox *busy_mb; /* the request it kept when it lost the role (pool_lock) */
    struct rcl_worker *next;     /* spare stack or free list (pool_lock) */
    struct rcl_worker *all_next; /* the server's list of every structure made (preempt.c) */
    uint64_t spare_since;        /* when it became a spare (pool_lock) */
    /* private to the worker thread */
    int *errp;             /* its errno (the client's errno is copied in and out, pass.c) */
    struct rcl_pass *pass; /* the pass it runs (pass.c) */
    sigjmp_buf abandon;    /* where a cancelled client's condition wait unwinds to (cond.c) */
    pthread_mutex_t *held; /* the current batch's mutex, taken by trylock, or NULL */
    pthread_mutex_t *active[RCL_MAX_NEST]; /* locks whose CS is running, outermost first */
    int nactive;
} __attribute__((aligned(RCL_CACHE_LINE)));

struct rcl_server {
    /* read-mostly by clients and the server */
    int index;
    int cpu;                    /* PU it is pinned to, -1 unpinned */
    struct rcl_chunk *chunks;   /* first chunk; the list only grows */
    _Atomic uint32_t nslots;    /* slots [0, nslots) may be in use: the server scans those */
    _Atomic uint32_t fork_hold; /* a fork is being prepared: the poller pauses (delegate.c) */
    pthread_mutex_t reg_lock;   /* slot allocation and chunk growth */
    /* requests kept by workers that lost the polling role: the poller skips them (pass.c).
     * Compact array; entries are added only while no worker is scanning. */
    _Atomic uint32_t nbusy;
    struct rcl_mailbox *_Atomic busy[RCL_POOL_LIMIT];

    /* written by the server when it parks, by a posting client when it wakes it */
    _Atomic uint32_t sleeping __attribute__((aligned(RCL_CACHE_LINE)));
    /* clients parked (or about to) on this server's answers: the server skips its per-mailbox
     * wake-up checks while this is 0 (client: RMW on its slow path; server: load after D2) */
    _Atomic uint32_t nparked;

    /* the blocking detector parks while the poller does (1: parked) */
    _Atomic uint32_t detector_parked;
    /* fork (server.c): the generation being prepared (forking thread) and the last one the
     * poller acknowledged by pausing (futex; poller) */
    _Atomic uint32_t fork_gen, fork_ack;
    bool fork_locked; /* the forking thread holds pool_lock across fork() (no poller) */

    /* nested delegation: the server this one is waiting on (cycle detection) */
    struct rcl_server *_Atomic waiting_on __attribute__((aligned(RCL_CACHE_LINE)));

    /* the polling role (server.c): changed only under pool_lock; NULL when every worker is
     * blocked and the pool is at its limit */
    struct rcl_worker *_Atomic poller;
    rcl_spin_t pool_lock;
    struct rcl_worker *spares; /* idle workers (pool_lock) */
    struct rcl_worker *free;   /* structures of exited workers, reused (pool_lock) */
    /* every worker structure ever made, newest first: pushed under pool_lock (release), never
     * removed (structures are reused, not freed); RCL_STATS walks it (preempt.c) */
    struct rcl_worker *_Atomic all;
    _Atomic uint32_t nworkers, nspares;
    int next_id;

    /* statistics, read by tools. served/idle_passes/parks are written by the poller only
     * (relaxed load + store: no RMW); the others under pool_lock. */
    _Atomic uint64_t served;      /* requests answered */
    _Atomic uint64_t idle_passes; /* passes that found nothing to run */
    _Atomic uint64_t parks;       /* times parked */
    _Atomic uint64_t handovers;   /* polling role handed over by a waiting CS (rcl_cond_*) */
    _Atomic uint64_t detected;    /* ... by the blocking detector */
    _Atomic uint64_t exhausted;   /* ... to nobody: the pool was at its limit */
    /* requests handed back to their callers to run locally (pass.c, server.c): */
    _Atomic uint64_t back_owner;     /* the caller already holds the (recursive) mutex */
    _Atomic uint64_t back_robust;    /* robust mutex: owner-died must reach the program */
    _Atomic uint64_t back_error;     /* trylock failed otherwise (EAGAIN, EINVAL...) */
    _Atomic uint64_t back_exhausted; /* withdrawn by the client: no servicing thread left */
    _Atomic uint64_t cancelled;      /* condition waits abandoned for a cancelled client */
    _Atomic uint64_t local_waits;    /* requests waited for in pthread_mutex_lock (pass.c) */
    _Atomic uint64_t as_caller;      /* sections run as their caller (caller.c; poller) */
    _Atomic uint64_t caller_here;    /* ... run in their caller instead: not available here
                                        (atomic add, by the callers) */
    _Atomic uint64_t timed;          /* timed requests served (delegate.c: atomic add, clients) */
    _Atomic uint64_t timed_out;      /* ... not run: withdrawn at the deadline, or the server's
                                        timed wait for the mutex ran out (atomic add) */

    /* preemption (preempt.c, whose design comment says who writes what) */
    _Atomic uint32_t pre_reading __attribute__((aligned(RCL_CACHE_LINE)));
    _Atomic uint32_t pre_permille; /* the last window's share of waiting for the CPU */
    int pre_tid;                   /* the window: whose, since when, the counts then */
    uint64_t pre_run, pre_wait, pre_at;
    _Atomic uint64_t gone_run, gone_wait, gone_nivcsw; /* workers that exited */
    _Atomic uint64_t injected_wait;                    /* tests: rcl__server_inject_wait */
} __attribute__((aligned(RCL_CACHE_LINE)));

/* A smoothed measure: 3/4 of the old value and 1/4 of the new one (the new one alone when there
 * is no old one, 0). */
static inline uint64_t rcl_smooth(uint64_t old, uint64_t x) {
    return old ? (3 * old + x) / 4 : x;
}

/* Statistics counter with one writer at a time (the poller, or whoever holds pool_lock): a
 * relaxed load and store, no read-modify-write. */
static inline void rcl_stat_add(_Atomic uint64_t *c, uint64_t n) {
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
                          memory_order_relaxed);
}

/* pass.c: one pass over a server's mailboxes */
#define RCL_ANSWERED_MAX 64
struct rcl_pass {
    unsigned served;
    unsigned blocked;   /* requests seen but skipped because a local holder had the mutex */
    unsigned busy;      /* requests seen but skipped because a worker that lost the polling role
                           still runs them (it kicks the server when it answers) */
    unsigned back;      /* requests handed back to their callers */
    unsigned nanswered; /* answered since the last wake-up check */
    bool light;         /* set by the caller: the previous pass served at most one request */
    struct rcl_mailbox *answered[RCL_ANSWERED_MAX];
    struct rcl_mailbox *wait; /* RCL_PASS_WAIT: the request whose mutex the worker waits for */
    rcl_cs_fn wait_fn;        /* ... and its critical section */
};
/* How a pass ended. */
enum rcl_pass_end {
    RCL_PASS_DONE, /* every mailbox seen */
    RCL_PASS_LOST, /* w->lost was set during a critical section: w may have lost the role */
    RCL_PASS_WAIT, /* p->wait found its mutex held by a local holder for RCL_LOCAL_WAIT_US:
                      the worker must give the role up, then call rcl_pass_serve_waited */
};
/* One pass of the poller w over its server's mailboxes (p: its counters, set up here): runs and
 * answers what it can. The wake-ups owed to parked clients may still be pending (rcl_pass_flush);
 * the batch's mutex may still be held (rcl_pass_release). */
RCL_HIDDEN enum rcl_pass_end rcl_pass_scan(struct rcl_worker *w, struct rcl_pass *p);
/* After RCL_PASS_WAIT, w no longer polling: wait for p->wait's mutex, run and answer it. */
RCL_HIDDEN void rcl_pass_serve_waited(struct rcl_worker *w, struct rcl_pass *p);
/* Release the mutex the pass's last batch holds, if any. */
RCL_HIDDEN void rcl_pass_release(struct rcl_worker *w);
/* Wake the clients answered in p since the last check that parked meanwhile. */
RCL_HIDDEN void rcl_pass_flush(struct rcl_server *s, struct rcl_pass *p);
/* The same for w's running pass: w is about to block inside a critical section (cond.c). */
RCL_HIDDEN void rcl_pass_flush_current(struct rcl_worker *w);
/* How many of s's mailboxes hold a posted request. */
RCL_HIDDEN unsigned rcl_pass_posted(struct rcl_server *s);
/* Wake every parked client of s whose request is still posted, so it looks at the pool again
 * (its server has no poller: server.c). Caller holds s->pool_lock. */
RCL_HIDDEN void rcl_pass_wake_waiting_clients(struct rcl_server *s);
/* Run fn inline on the calling servicing thread (nested delegation to the same server). */
RCL_HIDDEN int rcl_pass_run_nested(struct rcl_worker *w, pthread_mutex_t *lock, rcl_cs_fn fn,
                                   void *ctx);
/* The same for a timed call: 0 and fn's result in *result, or the timed lock's error. */
RCL_HIDDEN int rcl_pass_run_nested_timed(struct rcl_worker *w, pthread_mutex_t *lock, rcl_cs_fn fn,
                                         void *ctx, clockid_t clock, const struct timespec *abstime,
                                         int *result);
/* Abandon w's running top-level request mb (its client is being cancelled in a condition
 * wait; cond.c): release its mutex, answer RCL_ANSWER_CANCELLED, unwind to the worker's loop. */
RCL_HIDDEN _Noreturn void rcl_pass_abandon(struct rcl_worker *w, struct rcl_mailbox *mb);
/* The busy set: requests kept by workers that lost the polling role; a pass skips them.
 * Added and removed under pool_lock (server.c), only while no worker scans for add. */
RCL_HIDDEN void rcl_busy_add(struct rcl_server *s, struct rcl_mailbox *mb);
RCL_HIDDEN void rcl_busy_remove(struct rcl_server *s, struct rcl_mailbox *mb);
RCL_HIDDEN bool rcl_busy_has(struct rcl_server *s, struct rcl_mailbox *mb, uint32_t nbusy);

/* server.c: a server's threads */
RCL_HIDDEN void rcl_server_init(struct rcl_server *s, int index, int cpu);
RCL_HIDDEN void rcl_server_start(struct rcl_server *s);
/* Wake s's poller if it parked (a full fence first: pairs with its park). */
RCL_HIDDEN void rcl_server_kick(struct rcl_server *s);
/* The same, called by a client right after it posted a request: no fence where the parking
 * server pays for both sides with membarrier(2) (server.c, "Parking an idle server"). */
RCL_HIDDEN void rcl_server_kick_posted(struct rcl_server *s);
extern RCL_HIDDEN bool rcl_post_light;
/* Fork: pause s's poller so that no server thread holds a program's mutex across fork(), and
 * let it go on in the parent afterwards (delegate.c's pthread_atfork handlers). */
RCL_HIDDEN void rcl_server_fork_prepare(struct rcl_server *s);
RCL_HIDDEN void rcl_server_fork_parent(struct rcl_server *s);
/* In a forked child, before its servers start. */
RCL_HIDDEN void rcl_pool_after_fork(void);
/* Attributes of every thread the runtime starts: detached, asynchronous signals blocked; and
 * what each such thread calls first (the same signals blocked, from inside). */
RCL_HIDDEN void rcl_runtime_thread_attr(pthread_attr_t *attr);
RCL_HIDDEN void rcl_runtime_thread_start(void);
/* The running critical section of w is about to block (condition wait): hand the role over. */
RCL_HIDDEN void rcl_pool_before_block(struct rcl_worker *w);
/* The client's request mb is posted and s has no poller (every servicing thread is blocked and
 * the pool is at RCL_POOL_MAX): take the request back (fn = NULL, RCL_ANSWER_HAND_BACK) so that
 * the caller runs it itself. false when a poller exists or mb is already being run. */
RCL_HIDDEN bool rcl_pool_withdraw(struct rcl_server *s, struct rcl_mailbox *mb);
/* Whether s has no poller (relaxed hint for a waiting client). */
static inline bool rcl_pool_exhausted(struct rcl_server *s) {
    return atomic_load_explicit(&s->poller, memory_order_relaxed) == NULL;
}

/* preempt.c: a thread's scheduler statistics (the kernel's, nanoseconds) */
struct rcl_sched {
    uint64_t run_ns;  /* time it ran */
    uint64_t wait_ns; /* time it was runnable and waited for a CPU: preempted */
    uint64_t nivcsw;  /* involuntary context switches (when asked for) */
};
/* Thread tid's statistics (of this process); the switches too if `switches`. false: unknown. */
RCL_HIDDEN bool rcl_thread_sched(int tid, bool switches, struct rcl_sched *out);
/* Of the time s's poller wanted its CPU during the last window (2 ms or more, ending now), the
 * part it waited for it, in permille; 0 when unknown. Cheap when called often (preempt.c). */
RCL_HIDDEN unsigned rcl_server_preempted(struct rcl_server *s, uint64_t now_ns);
/* A worker of s about to exit adds its own statistics to s's totals. */
RCL_HIDDEN void rcl_worker_retire(struct rcl_server *s);
/* The totals over s's servicing threads, live and exited (RCL_STATS). false: unknown. */
RCL_HIDDEN bool rcl_server_sched_total(struct rcl_server *s, struct rcl_sched *out);
/* Tests: make s look preempted for ns more (added to what the kernel says its poller waited). */
RCL_HIDDEN void rcl__server_inject_wait(struct rcl_server *s, uint64_t ns);

RCL_HIDDEN struct rcl_mailbox *rcl_mailbox_alloc(struct rcl_server *s);
RCL_HIDDEN void rcl_mailbox_free(struct rcl_mailbox *mb);

/* ------------------------------------------------------------------ the runtime */

struct rcl_runtime {
    struct rcl_config cfg;
    struct rcl_placement pl;
    int nservers;
    struct rcl_server *servers;
    rcl_prof_cs_begin_fn prof_begin; /* profiler hooks, NULL unless preloaded */
    rcl_prof_cs_end_fn prof_end;
    rcl_prof_server_thread_fn prof_server_thread; /* NULL unless a profiler defines it */
    bool fast_ok;   /* nothing needs to see each call: the inline fast path may run (delegate.c) */
    bool as_caller; /* sections can run on a server as their caller (caller.c), set at start */
};

extern RCL_HIDDEN struct rcl_runtime rcl_rt;
extern RCL_HIDDEN RCL_TLS struct rcl_server *rcl_self_server; /* non-NULL on server threads */
extern RCL_HIDDEN RCL_TLS struct rcl_worker *rcl_self_worker; /* its servicing-thread record */

/* librcl's own code on this thread that may call the program's allocator (start-up, a client's
 * registration, a server thread's start, the blocking detector, RCL_STATS at exit): while
 * rcl_own_code is non-zero, every delegated call of this thread -- a section of a program's own
 * malloc, reached from there -- runs in the caller under its mutex (delegate.c, "The program's
 * allocator"). Only its own thread reads or writes it. */
extern RCL_HIDDEN RCL_TLS unsigned rcl_own_code;

/* caller.c: sections run on a server as their caller. */
extern RCL_HIDDEN RCL_TLS bool rcl_as_caller;   /* in the client's block, while the server runs */
extern RCL_HIDDEN RCL_TLS pid_t rcl_caller_tid; /* the client's kernel thread id (caller.c) */
/* The program's gettid(), syscall() and prctl() under rcl-cc's links (-Wl,--wrap; caller.c). */
RCL_API pid_t __wrap_gettid(void);
RCL_API long __wrap_syscall(long nr, ...);
RCL_API int __wrap_prctl(int option, ...);
struct rcl_caller_save {
    sigset_t mask;
    int cancel;
};
RCL_HIDDEN bool rcl_caller_available(void); /* this machine and build can */
RCL_HIDDEN uintptr_t rcl_caller_tp(void);   /* the calling thread's pointer, 0 when it cannot */
/* The client, around the post and the wait: signals masked, cancellation disabled. */
RCL_HIDDEN void rcl_caller_enter(struct rcl_caller_save *save);
RCL_HIDDEN void rcl_caller_leave(const struct rcl_caller_save *save);
/* The server: fn(ctx) with the thread pointer tp; *err: the client's errno in, the section's
 * out. */
RCL_HIDDEN int rcl_run_as_caller(rcl_cs_fn fn, void *ctx, uintptr_t tp, int *err);

/* wait.c: wait until mb (just posted to s) is answered: spin, then park; the request is taken
 * back (status RCL_ANSWER_HAND_BACK) when s has no poller left. A client thread's section that
 * waits on a condition is a cancellation point for it (cond.c). */
RCL_HIDDEN void rcl_client_wait(struct rcl_server *s, struct rcl_mailbox *mb);
/* The same, until abstime on clock at the latest: false when the deadline came first (the
 * request is still posted). */
RCL_HIDDEN bool rcl_client_wait_until(struct rcl_server *s, struct rcl_mailbox *mb, clockid_t clock,
                                      const struct timespec *abstime);

/* ------------------------------------------------------------------ adaptive mode */

enum rcl_path { RCL_PATH_LOCAL = 0, RCL_PATH_DELEGATE = 1 };
enum rcl_reason {
    RCL_REASON_NONE,
    RCL_REASON_EXPLORING,
    RCL_REASON_DELEGATE_FASTER,
    RCL_REASON_LOCAL_FASTER,
    RCL_REASON_SERVER_SATURATED,
    RCL_REASON_CROWDED,
    RCL_REASON_CONDITION_WAITS,
    RCL_REASON_SERVER_PREEMPTED,
    RCL_REASON_OTHER_TRIAL,
};

/* The adaptive policy's state for one lock (adaptive.c's design comment). Zeroed: new. */
struct rcl_adaptive_state {
    uint64_t est[2];      /* latest mean cost per call of each path, in rcl_ticks() (0: never) */
    uint64_t compared_at; /* the cost of the path kept at the last comparison of the two */
    int phase_hits;       /* steady epochs in a row that looked like a phase change */
    int explore_in;       /* epochs left before the next exploration */
    int explore_every;    /* epochs between explorations (doubles while they lose) */
    bool exploring;       /* the epoch that just ended tried the other path */
    bool confirming;      /* it won: the epochs now running must confirm the win (their mean) */
    int confirm_n;        /* confirming epochs so far */
    uint64_t confirm_until_ns; /* crowded: the confirmation also lasts until then (0: not) */
    uint64_t trial_ns;         /* when the last trial of the server began */
    uint64_t
        crowded_since_ns;     /* when an epoch first found the lock crowded or waiting (0: never) */
    uint64_t crowded_seen_ns; /* ... last found it crowded */
    uint64_t waiting_seen_ns; /* ... last saw its sections wait on a condition */
    uint64_t crowded_every_ns; /* crowded: time between trials of the server (0: the base) */
    bool crowded_trial;        /* the last trial of the server was a crowded or waiting one */
    bool crowded_tried;        /* a crowded or waiting trial happened (the first comes early) */
    bool by_rate;              /* the trial being confirmed is judged by calls per second */
    bool explore_timed;        /* the exploration running leads a trial by calls per second */
    uint64_t confirm_sum;      /* their means so far */
    uint64_t wall[2]; /* each path's wall time per sample: recent_wall's median (0: none) */
    uint64_t recent_wall[2][3]; /* the last three steady epochs' of each path, newest first */
    int nrecent[2];             /* how many of them there are */
    uint64_t confirm_wall;      /* the confirming epochs' so far */
    uint32_t epochs, switches;
    uint32_t switched_at;            /* epochs at the last switch */
    enum rcl_reason reason;          /* of the last decision that changed or kept a path */
    uint64_t seen_served, seen_idle; /* the server's counters at the last decision */
    uint64_t preempt_seen_ns;        /* when delegation last lost to a preempted server */
    uint64_t preempt_wait_ns;        /* ... and how long the server is not tried since then */
    int preempt_hits;                /* delegated epochs in a row that found it preempted */
    uint64_t due_ns; /* a trial of the server held (crowded, waiting, preempted) is due then */
    uint64_t lost_trial_wall;      /* the last trial of the server, lost by calls per second: its
                                      wall time per sample (0: none, or it won since) */
    uint64_t trial_min, trial_max; /* a timed trial's epochs' wall time per sample: lowest, */
    int trial_nwalls;              /* ... highest, and how many had one (their sum: confirm_wall) */
};

/* The decision at the end of an epoch that measured path cur (ep): true to switch to the other
 * path. Pure (tested on synthetic inputs). */
/* What an epoch measured, for the decision. */
struct rcl_epoch {
    uint64_t mean;         /* cost per call, rcl_ticks() (scaled: rcl_adaptive_effective) */
    uint64_t wall;         /* the epoch's wall time per sample, rcl_ticks() (0: unknown) */
    uint64_t now_ns;       /* when it ended, CLOCK_MONOTONIC (0: unknown) */
    bool server_saturated; /* the server found no idle moment during the epoch */
    bool crowded;          /* delegating leaves the lock's callers fewer CPUs than threads */
    bool waited;           /* its sections waited on a condition during the epoch */
    unsigned preempted;    /* delegated: of the time the server wanted its CPU lately, the part
                              it waited for it (permille; preempt.c); 0: none or unknown */
    bool other_trial;      /* another lock's trial by calls per second ran during the epoch, or
                              runs now (adaptive.c, "one trial at a time") */
};
RCL_HIDDEN bool rcl_adaptive_decide(struct rcl_adaptive_state *st, enum rcl_path cur,
                                    const struct rcl_epoch *ep);
/* What one call on `path` costs the program when `threads` threads call the lock and may run
 * on `cpus` CPUs, `server_cpus` of which run servers: the measured `mean` (the caller's wall
 * time per call), scaled by the share of a CPU each thread gets on that path (delegation takes
 * the server CPUs from the program while it runs). Pure (tested on synthetic inputs). */
RCL_HIDDEN uint64_t rcl_adaptive_effective(uint64_t mean, enum rcl_path path, unsigned threads,
                                           int cpus, int server_cpus);

struct rcl_lock_entry;
/* One adaptive call: the section and its lock's entry, run through rcl_adaptive_run, which
 * counts the call under the mutex. */
struct rcl_adaptive_call {
    rcl_cs_fn fn;
    void *ctx;
    struct rcl_lock_entry *e; /* NULL: the lock is not tracked (table full): local path */
    const void *site;         /* the return address of the program's rcl_delegate call */
};
RCL_HIDDEN enum rcl_path rcl_adaptive_begin(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx,
                                            struct rcl_adaptive_call *call, bool *sample);
RCL_HIDDEN int rcl_adaptive_run(void *call);
/* A section of `lock` is about to wait on a condition (cond.c; the caller holds the mutex). */
RCL_HIDDEN void rcl_adaptive_wait(pthread_mutex_t *lock);
/* In a forked child: the forking thread, if it had stepped off the servers' cores, gets every
 * CPU back (the child, and what it executes, are not the parent's clients). */
RCL_HIDDEN void rcl_adaptive_after_fork_child(void);
/* A sampled call took ns: may close the epoch and decide. s: the lock's server. */
RCL_HIDDEN void rcl_adaptive_end(struct rcl_adaptive_call *call, struct rcl_server *s, uint64_t ns);
/* Tests: the decision state of lock's entry (NULL: not tracked); read racily, a hint. */
RCL_HIDDEN const struct rcl_adaptive_state *rcl__adaptive_state(pthread_mutex_t *lock);
/* RCL_STATS: one line (or JSON object) per tracked lock. */
RCL_HIDDEN void rcl_adaptive_report(FILE *f, bool json);

/* stats.c: print RCL_STATS at exit (registered at start-up when asked for). */
RCL_HIDDEN void rcl_stats_register(void);

/* names.c: a lock's name in reports, written into buf: its symbol ("cache_lock",
 * "bucket_locks[1]", "obj+8"), else "site:" and the name of first_site (may be NULL), else its
 * address. Returns how it was named: "symbol", "site" or "address". */
RCL_HIDDEN const char *rcl_lock_name(const void *lock, const void *first_site, char *buf,
                                     size_t len);
/* A call site (a return address) as "function+0xOFF", else "module+0xOFF" (addr2line's
 * address in that file), of the call instruction. */
RCL_HIDDEN void rcl_site_name(const void *site, char *buf, size_t len);

/* A mutex address's hash: the lock-to-server map (delegate.c) and the adaptive side table
 * (adaptive.c) probe with it. */
static inline uint64_t rcl_hash_ptr(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p >> 3;
    x *= 0x9E3779B97F4A7C15ull;
    return x ^ (x >> 29);
}

/* Start the runtime if it is not running (idempotent, thread-safe, fork-aware). */
RCL_HIDDEN void rcl_runtime_ensure(void);

/* Internal asynchronous interface, used by the server-capacity benchmark: one thread owns
 * several mailboxes of one server and keeps them all full. */
RCL_HIDDEN struct rcl_mailbox *rcl__mailbox_open(int server);
RCL_HIDDEN void rcl__mailbox_post(struct rcl_mailbox *mb, pthread_mutex_t *lock, rcl_cs_fn fn,
                                  void *ctx);
RCL_HIDDEN bool rcl__mailbox_answered(struct rcl_mailbox *mb);
RCL_HIDDEN void rcl__mailbox_close(struct rcl_mailbox *mb);
RCL_HIDDEN struct rcl_server *rcl__server(int index);
RCL_HIDDEN unsigned rcl__server_slots(struct rcl_server *s);

#endif /* RCL_INTERNAL_H */
