/*
 * prof.h - internal interface of librcl-prof.so, the LD_PRELOAD half of rcl-prof.
 *
 * The preload keeps one record per lock (per mutex "incarnation": a mutex destroyed and
 * initialised again at the same address gets a new record) in a fixed-capacity arena, found
 * through a lock-free open-addressing table keyed by the mutex address (table.c). The
 * wrappers of pthread_mutex_* and pthread_cond_*wait (interpose.c) time what needs timing and
 * count into the calling thread's private cache entry for (mutex, call site) (tcache.c), which
 * reaches the shared record when it is evicted, when its thread exits, or when the dump is
 * written. threads.c accounts thread lifetimes (the denominator of "% time in CS"), hardware
 * counters and core kinds; startup.c brings all of it up; dump.c writes everything, raw, to a
 * file when the process ends (exit, _exit, fatal signal) and rcl-prof turns that file into the
 * report.
 *
 * The raw file layout is struct raw_header, the executable's path, the text of
 * /proc/self/maps, then `nrecords` struct lock_record. rcl-prof reads exactly these structs
 * (python/rcltools/rawdump.py; test/profiler/dump-layout.test fails when the two differ):
 * change them together and bump RCL_PROF_RAW_VERSION.
 */
#ifndef RCL_PROF_PROF_H
#define RCL_PROF_PROF_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define RCL_PROF_RAW_MAGIC   "RCLPROF\0"
#define RCL_PROF_RAW_VERSION 5u

#define PROF_SITES    6  /* call sites remembered per lock; the rest are counted as "other" */
#define PROF_KINDS    4  /* core kinds whose hold time is kept apart */
#define PROF_HELD_MAX 32 /* locks one thread may hold at once and still have timed */

#define PROF_LIKELY(x)   __builtin_expect(!!(x), 1)
#define PROF_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PROF_HIDDEN      __attribute__((visibility("hidden")))

/* How a call site acquired (or tried to acquire) the lock. Same values in rawdump.py. */
enum site_kind { SITE_LOCK = 0, SITE_TRYLOCK = 1, SITE_TIMEDLOCK = 2, SITE_DELEGATE = 3 };

/* Where a record's name comes from when the mutex has no static storage. */
enum identity_source { IDENT_INIT = 0, IDENT_FIRST_LOCK = 1, IDENT_OVERFLOW = 2 };

struct lock_site {
    _Atomic uint64_t pc; /* return address of the call (0: free slot) */
    _Atomic uint64_t count;
    _Atomic uint32_t kind;
    uint32_t pad;
};

/*
 * One lock. Times in "ticks" come from prof_ticks() (TSC on x86-64, ns elsewhere) and are
 * converted by rcl-prof with the tick rate in the header; times in ns come from the runtime's
 * delegation hooks.
 *
 * The counts of lock and unlock do not go here directly: each thread adds them to its own
 * cache entry for the (mutex, call site) pair (struct tc_entry, tcache.c), which is flushed
 * here with fetch_add (CAS for maxima) when it is evicted or its thread exits, and merged into
 * a copy of the records when the dump is written. So a lock handed between cores drags no
 * profiler data along, contended or not, and the lock wrappers never write a record while the
 * lock is held. Threads without a cache (the pool is exhausted), trylock failures, timeouts,
 * delegated critical sections, cache misses and per-core-kind hold times update the record
 * directly. Every write to a record is atomic.
 *
 * Hold time is measured on every critical section of a (thread, lock, site) until its critical
 * sections are known to be short (avg < SHORT_CS_TICKS over SAMPLE_AFTER of them); from then on
 * on a random sample, one in RCL_PROF_SAMPLE (default 16) on average for sections of about
 * SHORT_CS_TICKS, sparser for shorter ones (sample_interval in interpose.c), and the total is
 * extrapolated when the entry is flushed: hold_ticks += timed ticks * holds / holds_timed.
 * Reading the TSC costs 10-20 ns, twice per timed section, as much as an uncontended lock and
 * unlock. The counts (acquisitions, contended, holds, sites) are exact, unless
 * RCL_PROF_COUNT_EVERY=N > 1 (rcl-prof --count-every N): then a thread records one lock call
 * in N on average (random intervals, interpose.c) with the weight of the calls it stands for,
 * and the counts and totals are estimates.
 */
struct lock_record {
    _Alignas(64) _Atomic uint64_t acquisitions; /* lock, trylock, timedlock, delegate */
    _Atomic uint64_t contended;                 /* acquisitions that found it taken */
    _Atomic uint64_t holds;                     /* critical sections ended */
    _Atomic uint64_t holds_timed;               /* those whose hold time was measured */
    _Atomic uint64_t hold_ticks;                /* all of them (extrapolated, see above) */
    _Atomic uint64_t hold_max_ticks;            /* longest timed hold */
    _Atomic uint64_t wait_ticks;                /* contended acquisitions, all timed */
    _Atomic uint32_t pad0;
    _Atomic uint32_t has_delegated;
    struct lock_site sites[PROF_SITES];
    _Atomic uint64_t other_sites;
    _Atomic uint64_t wait_max_ticks;
    _Atomic uint64_t trylock_failures;
    _Atomic uint64_t timeouts;                         /* timedlock calls that gave up */
    _Atomic uint64_t misses, misses_cs;                /* cache misses over timed CSs */
    _Atomic uint64_t hold_ticks_by_kind[PROF_KINDS];   /* timed CSs, by core kind */
    _Atomic uint64_t delegated;                        /* delegated CSs (rcl_delegate) */
    _Atomic uint64_t deleg_hold_ns, deleg_hold_max_ns; /* time servers spent running them */
    _Atomic uint64_t deleg_wait_ns, deleg_wait_max_ns; /* client round trip minus server time */
    uint64_t address;
    uint64_t init_pc; /* site that initialised or first locked it */
    uint32_t identity_source;
    uint32_t generation; /* how many earlier records this address had */
};

#define SHORT_CS_TICKS 2000u /* ~1 us: below it, timing every CS would cost > 2 % */
#define SAMPLE_AFTER   64u

struct raw_header {
    char magic[8];
    uint32_t version, header_size, record_size, sites_per_record;
    int32_t pid, ppid;
    uint64_t start_ticks, end_ticks; /* prof_ticks() at start of profiling and at the dump */
    uint64_t start_ns, end_ns;       /* CLOCK_MONOTONIC at the same two moments */
    uint64_t thread_ticks;           /* summed lifetime of the threads (see threads.c) */
    uint64_t threads_started;        /* threads created while profiled (main not included) */
    uint64_t nrecords;               /* records following */
    uint64_t locks_untracked;        /* new locks that found the arena or table full */
    uint64_t holds_untracked;        /* CSs not timed: more than PROF_HELD_MAX locks held */
    int32_t hw_counters;             /* 1: cache misses counted; 0: not (see hw_errno) */
    int32_t hw_errno;                /* errno of perf_event_open, or 0 when disabled by env */
    int32_t nkinds;                  /* core kinds (1: symmetric machine) */
    int32_t dump_reason;             /* enum dump_reason */
    int32_t signal;                  /* the fatal signal, for DUMP_SIGNAL */
    int32_t exe_len;                 /* bytes of the executable's path that follow */
    int32_t counter_event;           /* enum counter_event: what `misses` counts */
    int32_t count_every;             /* RCL_PROF_COUNT_EVERY: 1 exact counts, N > 1 sampled */
    uint64_t maps_len;               /* bytes of /proc/self/maps that follow the path */
    char kind_names[PROF_KINDS][16];
};

enum dump_reason { DUMP_EXIT = 0, DUMP_DESTRUCTOR = 1, DUMP_SIGNAL = 2, DUMP_UNDERSCORE_EXIT = 3 };

/* ---- clock (inline: hot path) ---- */
#include <time.h>
static inline uint64_t prof_ticks(void) {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static inline uint64_t prof_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- counter updates (inline: hot path) ---- */

/* `excl`: no other thread writes x (it is in this thread's cache, or a private copy): a plain
 * load and store, no locked instruction. Shared records always get fetch_add. */
static inline void prof_add(_Atomic uint64_t *x, uint64_t v, int excl) {
    if (PROF_LIKELY(excl))
        atomic_store_explicit(x, atomic_load_explicit(x, memory_order_relaxed) + v,
                              memory_order_relaxed);
    else
        atomic_fetch_add_explicit(x, v, memory_order_relaxed);
}

/* Raises *x to v: a plain store when `excl`, else a CAS loop. */
static inline void prof_raise_max(_Atomic uint64_t *x, uint64_t v, int excl) {
    uint64_t old = atomic_load_explicit(x, memory_order_relaxed);
    if (PROF_LIKELY(v <= old)) return;
    if (excl) {
        atomic_store_explicit(x, v, memory_order_relaxed);
        return;
    }
    while (v > old && !atomic_compare_exchange_weak_explicit(x, &old, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

/* ---- real functions (resolved by startup.c, called by the wrappers of interpose.c) ---- */
struct real_fns {
    int (*mutex_lock)(pthread_mutex_t *);
    int (*mutex_trylock)(pthread_mutex_t *);
    int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
    int (*mutex_unlock)(pthread_mutex_t *);
    int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
    int (*mutex_destroy)(pthread_mutex_t *);
    int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
    int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
    int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    void (*underscore_exit)(int) __attribute__((noreturn));
    void (*underscore_Exit)(int) __attribute__((noreturn));
};
extern PROF_HIDDEN struct real_fns prof_real;

/* ---- start-up and global state (startup.c) ---- */
extern PROF_HIDDEN _Atomic int prof_ready;    /* tables mapped and real functions resolved */
extern PROF_HIDDEN uint64_t prof_start_ticks; /* reset in a forked child */
extern PROF_HIDDEN uint64_t prof_start_ns;
PROF_HIDDEN void prof_init(void); /* once; from the constructor or the first wrapper called */

/* ---- the raw dump (dump.c) ---- */
PROF_HIDDEN void prof_dump_arm(void); /* at start-up, once the tables exist */
PROF_HIDDEN void prof_dump_after_fork(void);
PROF_HIDDEN void prof_dump(int reason, int sig);

/* ---- lock table (table.c) ---- */
PROF_HIDDEN int prof_table_init(void);
PROF_HIDDEN void prof_table_reset_after_fork(void);
/* The current record of the mutex at addr, created on first use; never NULL (a full table
 * yields the shared overflow record). */
PROF_HIDDEN struct lock_record *prof_record(const void *addr, uint64_t pc);
PROF_HIDDEN void prof_lock_initialised(const void *addr, uint64_t pc);
PROF_HIDDEN void prof_lock_destroyed(const void *addr);
/* Records are indices 1 .. prof_table_records_end()-1; one whose address is 0 is unused. */
extern PROF_HIDDEN struct lock_record *prof_records;
extern PROF_HIDDEN _Atomic uint32_t prof_lock_epoch; /* +1 whenever a mutex loses its record */
PROF_HIDDEN void prof_count_site(struct lock_record *r, uint64_t pc, int kind, uint64_t n,
                                 int excl);

/* ---- per-thread caches (tcache.c) ---- */
#define TC_ENTRIES 64 /* per thread, direct-mapped by (mutex, call site) */

/* Written by its thread only (relaxed stores); the dump reads it from another thread. Keyed by
 * mutex address and call site, so that a hit needs no lookup in the lock table; `epoch` says
 * whether `rec` is still the mutex's record (prof_lock_epoch moves on every destroy/re-init).
 * Everything the lock and unlock wrappers count is here, contention and maxima included: the
 * record's cache lines are never written while a lock is held (they would lengthen the
 * critical section other threads wait for, and travel between cores with every handoff). */
struct tc_entry {
    _Alignas(64) _Atomic uint64_t mutex; /* 0: free */
    _Atomic uint64_t pc;
    _Atomic uint32_t rec; /* record index */
    uint32_t epoch;
    uint8_t kind;    /* enum site_kind of pc */
    uint8_t sampled; /* short critical sections: time a sample only */
    uint16_t pad16;
    uint32_t countdown; /* sampled: critical sections until the next timed one; else 0 */
    _Atomic uint64_t acquisitions, holds, holds_timed, hold_ticks;
    _Atomic uint64_t contended, wait_ticks, wait_max_ticks, hold_max_ticks;
    uint32_t sample_mean; /* sampled: the mean interval between timed critical sections */
};

struct tcache {
    struct tc_entry e[TC_ENTRIES];
};

struct thread_state;
PROF_HIDDEN int prof_tcache_init(void);
PROF_HIDDEN void prof_tcache_reset_after_fork(void);
PROF_HIDDEN struct tcache *prof_tcache_attach(struct thread_state *t);
PROF_HIDDEN void prof_tcache_detach(struct thread_state *t);
/* Flushes e and keys it to (mutex, pc); a held lock of t whose counts went to e goes on with
 * the record e had (see struct held). */
PROF_HIDDEN struct tc_entry *prof_tcache_replace(struct thread_state *t, struct tc_entry *e,
                                                 uint64_t mutex, uint64_t pc, uint32_t rec,
                                                 uint32_t epoch, int kind);
/* Adds every live cache's counts for records [lo, hi) to `window`, a private copy of them. */
PROF_HIDDEN void prof_tcache_merge_into(struct lock_record *window, uint64_t lo, uint64_t hi);
PROF_HIDDEN const struct lock_record *prof_table_record(uint64_t i);
PROF_HIDDEN uint64_t prof_table_records_end(void);
extern PROF_HIDDEN _Atomic uint64_t prof_locks_untracked;

/* ---- threads, counters, core kinds (threads.c) ---- */
/* A lock this thread holds (or is about to: interpose.c prepares the slot above the top before
 * the lock call). `entry` is where its counts go; while it is NULL they go to `rec` (with `pc`
 * and `site_kind` for the call site), and only then are those two fields valid. */
struct held {
    pthread_mutex_t *mutex;
    struct tc_entry *entry; /* NULL: no cache entry, count into rec */
    struct lock_record *rec;
    uint64_t pc;
    uint64_t acquired_ticks;
    uint64_t misses_at_acquire;
    int kind;        /* core kind the timed hold started on */
    int site_kind;   /* enum site_kind of pc */
    int nested;      /* a recursive mutex taken again: only the outermost hold counts */
    int timed;       /* acquired_ticks is valid: this CS's hold is measured */
    int plain;       /* counted before the lock call and released by unlock's fast path */
    uint32_t weight; /* the acquisitions it stands for: 1, or with sampled counts its interval */
};

struct thread_state {
    struct held held[PROF_HELD_MAX + 1]; /* the last: spare, for one beyond PROF_HELD_MAX */
    int nheld;
    int fast; /* has a cache, classified, not a server, no rcl_delegate in flight: see recheck */
    /* Sampled counts (prof_count_every > 1) only, else both 0: pthread_mutex_lock calls still to
     * pass on unrecorded (only while `fast`), and the interval they are part of (the weight of
     * the call that ends it). */
    uint32_t skip, interval;
    int perf_fd1;      /* counter fd + 1; 0: not opened yet; -1: none */
    struct tcache *tc; /* this thread's cache; NULL: none yet (or none to be had) */
    int tc_refused;    /* no cache for this thread: pool full, or the thread is exiting */
    int registered;    /* lifetime accounted (created through pthread_create) */
    int is_server;     /* an RCL server thread (rcl_prof_server_thread or its name) */
    int classified;    /* is_server decided */
    unsigned epoch;    /* prof_epoch when registered: a forked child starts a new epoch */
    uint64_t start_ticks;
    uint32_t rng; /* xorshift state for the sampling intervals */
    /* rcl_delegate in flight on this thread (rcl_prof_cs_begin .. rcl_prof_cs_end) */
    pthread_mutex_t *deleg_lock;
    uint64_t deleg_site;
    uint64_t deleg_start_ns;
    int deleg_local_seen;
};
extern PROF_HIDDEN __thread struct thread_state prof_thread
    __attribute__((tls_model("initial-exec")));

/* `fast` lets the lock wrapper test one flag instead of four: call after changing any of tc,
 * classified, is_server, deleg_lock. */
static inline void prof_thread_recheck(struct thread_state *t) {
    t->fast = t->tc && t->classified && !t->is_server && !t->deleg_lock;
    if (!t->fast) t->skip = 0; /* pass on calls only in that state: see interpose.c */
}
extern PROF_HIDDEN _Atomic uint64_t prof_holds_untracked;

PROF_HIDDEN void prof_threads_init(void);
PROF_HIDDEN void prof_threads_after_fork(void);
PROF_HIDDEN uint64_t prof_thread_ticks(uint64_t now);
PROF_HIDDEN uint64_t prof_threads_started(void);
PROF_HIDDEN void prof_thread_started(void);
PROF_HIDDEN void prof_thread_is_server(void);

extern PROF_HIDDEN int prof_nkinds;
extern PROF_HIDDEN unsigned char prof_cpu_kind[1024];
extern PROF_HIDDEN char prof_kind_names[PROF_KINDS][16];
static inline int prof_current_kind(void);

extern PROF_HIDDEN _Atomic int prof_hw_state; /* 1 available, 0 unavailable, -1 unknown */
enum counter_event { COUNTER_CACHE_MISSES = 0, COUNTER_TASK_CLOCK = 1 };
extern PROF_HIDDEN int prof_counter_event;
extern PROF_HIDDEN int prof_hw_errno;
PROF_HIDDEN uint64_t prof_read_misses(void);    /* this thread's cache misses so far */
extern PROF_HIDDEN uint32_t prof_sample_period; /* RCL_PROF_SAMPLE */
extern PROF_HIDDEN uint32_t prof_count_every;   /* RCL_PROF_COUNT_EVERY (1: exact counts) */

#include <sched.h>
static inline int prof_current_kind(void) {
    if (PROF_LIKELY(prof_nkinds <= 1)) return 0;
    int cpu = sched_getcpu();
    return (cpu >= 0 && cpu < 1024) ? prof_cpu_kind[cpu] : 0;
}

#endif /* RCL_PROF_PROF_H */
