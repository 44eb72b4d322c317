/*
 * adaptive.c - RCL_MODE=adaptive: per lock, run critical sections in the caller or on the
 * server, whichever the runtime measures to be cheaper, switching at run time.
 *
 * ==========================================================================================
 * THE POLICY
 * ==========================================================================================
 *
 * What is compared. The cost of one critical-section call as its caller sees it: from the call
 * to the return, including waiting for the mutex (local path) or for the server's answer
 * (delegated path), and therefore everything that makes either path slow on this machine: lock
 * hand-overs and the protected data's cache misses, the number of contending threads, a slower
 * core running the section locally, a server that queues requests, clients that share a core.
 * One thing a caller's clock does not see: while delegating, the server takes its CPU from the
 * program. So each epoch's mean is scaled by the CPU share of the lock's callers on that path
 * (rcl_adaptive_effective): T threads called the lock lately (a bitmap of thread numbers), the
 * closing thread may run on P CPUs, S of which run servers; a path whose usable CPUs (P, or
 * P - S for delegation) are fewer than T costs T / usable times its mean. With one server on a
 * 2-CPU machine and 2 threads, delegation must be twice as fast per call to win (kvstore at 2
 * threads delegated for 0.7x the original's throughput before; at 4 threads the model alone
 * is not enough: see "crowded" below); with the program's
 * threads confined to CPUs without servers, or on a big machine, nothing is scaled.
 * No threshold is a constant tuned to one machine: the two paths' costs are measured where the
 * program runs, on its own sections.
 *
 * How. Each converted lock has an entry in a side table keyed by the mutex's address (never in
 * the mutex). One call in RCL_ADAPTIVE_SAMPLE per thread is timed; RCL_ADAPTIVE_EPOCH samples
 * make an epoch; an exploration times every call and lasts RCL_EXPLORE_EPOCH samples, so that
 * trying a losing path costs a few calls, not hundreds. The thread that completes an epoch decides
 * (rcl_adaptive_decide, a pure function tested on synthetic inputs):
 *   - the epoch's cost updates the estimate of the path it measured: a steady epoch's smoothed
 *     (3/4 of the old estimate), a trial epoch's as it is;
 *   - exploration: the other path's estimate gets stale, so every `explore_every` epochs one
 *     epoch runs on the other path (its first RCL_EXPLORE_WARMUP calls untimed: the one-time
 *     cost of switching, such as waking a parked server, is not the path's cost). If it wins by
 *     the hysteresis margin (RCL_ADAPTIVE_MARGIN, 10 %), the lock stays there for
 *     RCL_CONFIRM_EPOCHS full epochs, whose mean must confirm the win (by half the margin), and
 *     whose wall time per sample (the lock's calls per second, inverted) must not exceed the
 *     old path's by more than the margin -- a caller's clock does not see the time a client
 *     spends descheduled between calls because the server took its CPU, the epochs' length
 *     does (kvstore at 4 threads on 2 CPUs: 0.72-0.80x -> 0.88-0.95x of local): an
 *     exploration is short (16 samples) and a lucky one would otherwise move the lock to a path
 *     that longer measures find worse, and back, over and over (measured: tens of such "wins"
 *     per second on a hot lock of this VM; a one-epoch confirmation still let a lock whose
 *     holder is preempted now and then flap 194 times a second). Otherwise, or when the
 *     confirmation fails, it goes back and explore_every doubles (up to 256 epochs, so a
 *     losing path costs < 0.5 % of the calls once the lock settled). A confirmed switch looks
 *     at the old path again soon (2 epochs), unless the lock switched within the last 64
 *     epochs too: then the next look is twice as far as the last one (a damper);
 *   - a phase change (in two steady epochs in a row, the current path costs at least twice
 *     what it cost at the last comparison, and no less than the other path's estimate less
 *     the margin; one epoch alone is noise) resets explore_every, so the other path is tried
 *     again soon;
 *   - a saturated server (its poller found no idle moment during the epoch) is not explored
 *     towards: more delegation would only queue longer;
 *   - crowded (delegating would leave the lock's callers fewer CPUs than threads: the server
 *     takes one they use): a trial of the server starts at most once a second, and its
 *     confirmation lasts 50 ms, so that its calls per second include the scheduler's turns
 *     among the threads; it is judged by calls per second alone, either way (the calls' own
 *     times say little there: see "by_rate"); a losing trial costs at most ~5 % of the time. (A
 *     16-call exploration and 4 short epochs cannot see a client descheduled for a few ms: on
 *     kvstore at 4 threads the lock flapped 20-40 times in 1.5 s, 20-61 % delegated.) The
 *     first trial comes 50 ms after the lock was found crowded, the next ones 1 s apart and
 *     doubling while they lose; a trial whose calls per second lose by twice the margin after
 *     10 ms ends then (a quick abort), so the early one costs ~1 % of a second when it loses,
 *     and a lock where delegation clearly pays moves in ~100 ms instead of > 1 s;
 *   - waiting (its sections waited on a condition in the last second, rcl_adaptive_wait): the
 *     calls' times measure the wait for other threads, and a delegated wait's hand-overs of
 *     the server hide in it; its trials (both ways) are judged by calls per second alone, over
 *     the same 50 ms with the same quick abort, and trials of the server come as rarely as a
 *     crowded lock's;
 *   - decisive (issue 33): a trial whose calls per second differ from the current path's by
 *     RCL_DECISIVE (2x) or more is settled by them: a decisive loss ends a timed trial after
 *     two epochs (10 ms) and pushes the next exploration 4x further instead of 2x; a decisive
 *     win wins even where the calls' own times say otherwise (threads sharing a CPU: their
 *     calls' times count their turns), and the next look at the old path comes
 *     RCL_DECISIVE_EVERY epochs later, not 2 (emulated big/little, delegated: 7 looks at local
 *     of 16 ms each at 0.3x the calls per second, 120 ms of a 1.5 s run, now ~20 ms); no
 *     exploration before the current path's calls per second are known (its first epoch);
 *   - overtaken: a crowded or waiting lock whose last trial of the server lost by calls per
 *     second tries again before its second is up when the local path's calls per second have
 *     since fallen below what the server made in that trial (threads that started later, or
 *     moved to a slower CPU: a big/little run lost its first trial against the first epochs'
 *     local path, then ran a second at half the delegated rate);
 *   - a held trial is due at a time (st->due_ns): the local epoch running then ends then
 *     (close_epoch), since a held lock samples as a settled one and its epochs are 8x longer
 *     (the first trial of a big/little run came at 120 ms instead of 50);
 *   - a timed trial (crowded or waiting) samples one call in RCL_SAMPLE_TRIAL, and its epochs
 *     end after RCL_TRIAL_EPOCH_NS (with RCL_TIMED_MIN samples) as well as at 64 samples, so
 *     its quick abort comes after 10 ms whatever the tried path's calls cost; a delegated
 *     lock's epochs end after RCL_DELEGATED_EPOCH_NS. The calls per second a trial is judged
 *     against are the median of the current path's last three steady epochs, and a timed
 *     trial waits until three were measured: one slow epoch (the first,
 *     threads starting) must not decide a run (docs/runtime.md, "Why one run decided
 *     otherwise than the next");
 *   - one trial at a time: a trial judged by calls per second measures the whole program's
 *     pace, and so does every other lock's epoch meanwhile; such a trial holds a token for the
 *     process (close_epoch, trial_live), another lock's trial waits for it
 *     (RCL_REASON_OTHER_TRIAL), and an epoch that overlapped it is no lock's reference (a thread
 *     pool's two locks tried at once: one "won" on the other's end, docs/runtime.md);
 *   - preempted (issue 31: beside busy processes, the server's CPU is contended): a
 *     delegated epoch reads how much of the time the lock's server wanted its CPU it waited
 *     for it (preempt.c, the kernel's schedstat); a quarter or more, with the lock's calls per
 *     second clearly below the local path's, sends the lock home at once and holds trials of
 *     the server for 100 ms, doubling while it recurs (up to 16 s).
 * Where clients keep the servers' cores (a 2-core machine), a thread steps off them while it
 * delegates and back on when it no longer does (step, placement.c "Stepping off"), so that a
 * trial of the server and the delegated path run as delegate mode runs them.
 * Start: local (the original program's behaviour), with the first exploration after one epoch.
 * Mixed mode makes every mixture of local and delegated sections on one mutex correct, so a
 * decision may change at any call, and threads need not agree at any instant.
 *
 * Which calls are timed: one in RCL_ADAPTIVE_SAMPLE of each lock's calls (see tls_rand).
 * Who writes what: key, once, by the inserting thread (CAS); path by the epoch's closer (only
 * one thread closes an epoch -- the one whose sample count reaches the epoch, or that finds a
 * timed epoch past its deadline, whichever takes `closing` first; relaxed, a hint), and the
 * deadline before it (the word's store is a release, the flushing sampler's load of it an
 * acquire: a sampler that adds to a timed epoch compares with that epoch's deadline, not with
 * an old one long past, which would end the epoch at its fourth sample);
 * the sampling fields with atomic adds, RCL_SAMPLE_BATCH samples of one thread at a time (a
 * batch whose path changed before it went out is dropped); the decision state only by the closer;
 * with RCL_STATS, calls and delegated are counted under the mutex itself (plain increments by
 * whoever holds it: the caller on the local path, the server on the delegated one); waits,
 * under the mutex too, by the section that is about to wait (a relaxed load and store: one
 * writer at a time; the closer reads it racily and only compares it with the last value it
 * saw, so a late value delays the "waiting" mark by one epoch, never loses it); callers:
 * atomic OR of a thread's bit, by a sampling thread whose bit is not yet set, cleared by the
 * closer every 4 epochs.
 * ==========================================================================================
 */
#include "internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RCL_ADAPTIVE_SLOTS     1024 /* locks tracked; the others run locally (unmeasured) */
#define RCL_ADAPTIVE_SAMPLE    16   /* one call in 16 per thread is timed, */
#define RCL_SAMPLE_SETTLED     128  /* one in 128 while the lock is settled (RCL_PATH_SETTLED) */
#define RCL_SETTLED_EVERY      32   /* settled: explorations this far apart (they lost) */
#define RCL_ADAPTIVE_EPOCH     64   /* samples per decision */
#define RCL_EXPLORE_EPOCH      16   /* samples of an exploration: every call is timed then */
#define RCL_PATH_EXPLORING     2    /* path word: the current epoch explores */
#define RCL_PATH_SETTLED       4    /* path word: sampled one call in RCL_SAMPLE_SETTLED */
#define RCL_PATH_TIMED         8    /* path word: the epoch ends on time too (e->deadline) */
#define RCL_PATH_TRIAL         16   /* path word: a timed trial, one call in RCL_SAMPLE_TRIAL */
#define RCL_SAMPLE_TRIAL       4    /* a timed trial samples densely: its epochs end on time */
#define RCL_TIMED_MIN          4    /* samples an epoch needs to end on time */
#define RCL_TRIAL_EPOCH_NS     5000000ull  /* a timed trial's, an exploration's epochs 5 ms, */
#define RCL_DELEGATED_EPOCH_NS 20000000ull /* a delegated lock's 20 ms (see "preempted") */
#define RCL_PREEMPTED_PERMILLE 250         /* the server waited a quarter of its time for its CPU */
#define RCL_PREEMPT_FIRST_NS   100000000ull   /* preempted: no trial of it for 100 ms, */
#define RCL_PREEMPT_MAX_NS     16000000000ull /* ... doubling while it recurs, up to 16 s */
#define RCL_SAMPLE_CAP         16  /* a sample counts at most 16x the path's last estimate */
#define RCL_EXPLORE_MAX        256 /* epochs between explorations, at most */
#define RCL_EXPLORE_WARMUP     4   /* first calls of an exploration, not timed (see below) */
#define RCL_SAMPLE_BATCH       8   /* samples a thread adds to the shared sums at a time */
#define RCL_CONFIRM_EPOCHS     4   /* full epochs that must confirm an exploration's win */
#define RCL_CROWDED_FIRST_NS   50000000ull    /* crowded or waiting: a first trial after 50 ms, */
#define RCL_CROWDED_TRIAL_NS   1000000000ull  /* ... then one a second, */
#define RCL_CROWDED_TRIAL_MAX  16000000000ull /* ... or, while trials lose, down to one in 16 s */
#define RCL_CROWDED_CONFIRM_NS 50000000ull    /* ... whose confirmation lasts 50 ms, */
#define RCL_TRIAL_ABORT_NS     10000000ull    /* ... or 10 ms if it clearly loses calls/s */
#define RCL_DECISIVE           2 /* a trial's calls per second differ by this factor or more */
#define RCL_DECISIVE_EVERY     8 /* ... a win's next look at the old path, in epochs */

/* rcl.h's inline fast path reads the bits that say how calls run. */
_Static_assert(RCL__PATH_RUN == (RCL_PATH_DELEGATE | RCL_PATH_EXPLORING), "path word bits");

/* One call in how many is timed on a lock whose path word is `word` (outside explorations). */
static inline unsigned sample_rate(uint32_t word) {
    return word & RCL_PATH_TRIAL     ? RCL_SAMPLE_TRIAL
           : word & RCL_PATH_SETTLED ? RCL_SAMPLE_SETTLED
                                     : RCL_ADAPTIVE_SAMPLE;
}

/* One converted lock (three lines: read by every call / sampling / counted under the mutex). */
struct rcl_lock_entry {
    /* read by every call */
    pthread_mutex_t *_Atomic key;
    _Atomic uint32_t path; /* enum rcl_path | RCL_PATH_EXPLORING, _SETTLED, _TIMED, _TRIAL */
    /* sampling: atomic adds by the callers */
    _Atomic uint32_t samples __attribute__((aligned(RCL_CACHE_LINE)));
    _Atomic uint64_t sum; /* rcl_ticks() */
    _Atomic uint32_t closing;
    _Atomic uint64_t deadline; /* RCL_PATH_TIMED: rcl_ticks() after which the epoch may end */
    _Atomic int32_t warmup;    /* calls of the current exploration still to run untimed */
    _Atomic uint64_t callers;  /* bit (thread number % 64) of each thread that sampled lately */
    unsigned last_callers;     /* how many the closer counted over the previous window */
    /* the decision: the epoch's closer only */
    struct rcl_adaptive_state st;
    uint64_t epoch_began;    /* rcl_ticks() when the current epoch began (its closer) */
    uint64_t epoch_began_ms; /* ... CLOCK_MONOTONIC, in ms (its closer: "one trial at a time") */
    uint32_t seen_waits;     /* `waits` when the closer last looked */
    /* counted under the mutex */
    uint64_t calls __attribute__((aligned(RCL_CACHE_LINE)));
    uint64_t delegated;
    const void *first_site; /* the first counted call's site: names the lock (names.c) */
    _Atomic uint32_t waits; /* condition waits of its sections (rcl_adaptive_wait), any mode */
} __attribute__((aligned(RCL_CACHE_LINE)));

static struct rcl_lock_entry table[RCL_ADAPTIVE_SLOTS];
/* Which calls are timed: one in `rate` of *each lock's* calls, whatever the order in which a
 * thread takes its locks. A call that enters the library when its lock's grant of inline calls
 * (rcl.h's way) ran out is due; any other entering call (the lock had no grant: the first
 * call, another lock shares the way, the lock is delegated, RCL_STATS makes every call enter)
 * is timed with probability 1 / rate, by the thread's xorshift generator. (Before, the thread's
 * n-th call was timed when n % rate was 0: a thread that alternates between two locks -- a pool
 * worker takes a job under one and files the result under another -- timed only one of them,
 * and the other's epochs never closed, "none yet" after 126,000 calls; counting per way still
 * did that to two locks that share a way.) */
static RCL_TLS uint32_t tls_rand;
static RCL_TLS unsigned tls_flip_calls; /* RCL_ADAPTIVE_FLIP: all the thread's calls */

static uint32_t next_rand(void) {
    uint32_t x = tls_rand ? tls_rand : (uint32_t)(uintptr_t)&tls_rand | 1;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return tls_rand = x;
}
/* The thread's number (callers' bitmaps; 0: not yet given) and the CPUs it may run on, how many
 * of them run servers (refreshed now and then: a program may move its threads). */
static _Atomic unsigned next_thread;
static RCL_TLS unsigned tls_thread;
static RCL_TLS struct {
    int cpus, server_cpus;
    unsigned age;
} tls_cpus;
/* The thread's last lock and its entry: a loop on one hot lock skips the hash and the probe. */
static RCL_TLS pthread_mutex_t *tls_last_lock;
static RCL_TLS struct rcl_lock_entry *tls_last_entry;
/* Samples the thread took of one entry on one path, added to the shared sums RCL_SAMPLE_BATCH
 * at a time (two atomic adds on a line all callers share, per batch instead of per sample). */
static RCL_TLS struct {
    struct rcl_lock_entry *e;
    struct rcl_server *s;
    uint32_t path, n;
    uint64_t sum;
    uint64_t cap; /* RCL_SAMPLE_CAP times the path's estimate when the batch began (0: none) */
} tls_acc;

/* The lock's entry; a new one if `insert` (NULL: none, or the table is crowded there). */
static struct rcl_lock_entry *entry_of(pthread_mutex_t *lock, bool insert) {
    if (lock == tls_last_lock) return tls_last_entry;
    for (uint64_t h = rcl_hash_ptr(lock), i = 0; i < 16; i++) {
        struct rcl_lock_entry *e = &table[(h + i) % RCL_ADAPTIVE_SLOTS];
        pthread_mutex_t *k = atomic_load_explicit(&e->key, memory_order_acquire);
        if (!k && !insert) return NULL;
        if (k == lock ||
            (!k && (atomic_compare_exchange_strong_explicit(&e->key, &k, lock, memory_order_acq_rel,
                                                            memory_order_acquire) ||
                    k == lock))) { /* a zeroed entry is a fresh one: local, explore soon */
            tls_last_lock = lock;
            tls_last_entry = e;
            return e;
        }
    }
    return NULL; /* table crowded around this hash: not tracked */
}

/* The reason that says `path` measured faster. */
static enum rcl_reason faster(enum rcl_path path) {
    return path == RCL_PATH_DELEGATE ? RCL_REASON_DELEGATE_FASTER : RCL_REASON_LOCAL_FASTER;
}

/* A crowded or waiting lock's time before its next trial of the server: RCL_CROWDED_FIRST_NS
 * before the first one, then RCL_CROWDED_TRIAL_NS, doubling while they lose. */
static uint64_t crowded_wait(const struct rcl_adaptive_state *st) {
    return st->crowded_every_ns ? st->crowded_every_ns
           : st->crowded_tried  ? RCL_CROWDED_TRIAL_NS
                                : RCL_CROWDED_FIRST_NS;
}

/* Back to `other` after a trial of the current path lost: the next exploration comes later
 * (explore_every doubles from at least `least`, up to RCL_EXPLORE_MAX; quadruples when the
 * trial lost decisively), and so does the next trial of a crowded lock's server. */
static bool back_off(struct rcl_adaptive_state *st, enum rcl_path other, int least, bool decisive) {
    if (other == RCL_PATH_LOCAL && st->crowded_trial) {
        uint64_t every = st->crowded_every_ns;
        st->crowded_every_ns = !every                              ? RCL_CROWDED_TRIAL_NS
                               : every < RCL_CROWDED_TRIAL_MAX / 2 ? 2 * every
                                                                   : RCL_CROWDED_TRIAL_MAX;
    }
    int grow = decisive ? 4 : 2;
    st->explore_every = st->explore_every < least / 2                ? least
                        : st->explore_every < RCL_EXPLORE_MAX / grow ? grow * st->explore_every
                                                                     : RCL_EXPLORE_MAX;
    st->explore_in = st->explore_every;
    st->reason = faster(other);
    return true;
}

/* A steady epoch of `path` measured `wall` per sample: the path's calls per second, as the median
 * of its last three steady epochs (of two, their mean). */
static void note_wall(struct rcl_adaptive_state *st, enum rcl_path path, uint64_t wall) {
    uint64_t *r = st->recent_wall[path];
    r[2] = r[1];
    r[1] = r[0];
    r[0] = wall;
    if (st->nrecent[path] < 3) st->nrecent[path]++;
    uint64_t a = r[0], b = r[1], c = r[2];
    st->wall[path] = st->nrecent[path] == 1   ? a
                     : st->nrecent[path] == 2 ? (a + b) / 2
                     : a < b                  ? (b < c   ? b
                                                 : a < c ? c
                                                         : a)
                                              : (a < c   ? a
                                                 : b < c ? c
                                                         : b);
}

/* The path was just confirmed: what it measured before (another stint) is old news. */
static void restart_walls(struct rcl_adaptive_state *st, enum rcl_path path, uint64_t wall) {
    st->nrecent[path] = 0;
    st->wall[path] = 0;
    if (wall) note_wall(st, path, wall);
}

/* A timed trial's epochs so far: their mean wall time per sample without the worst one (when
 * there are three or more). Every epoch holds the same number of samples, so the mean is the
 * trial's calls per second; a median would not be (emulated big/little, 4 threads: the local
 * path alternates between phases 4x apart as the scheduler moves the threads, its fast epochs
 * are 4x shorter and more numerous, and their median made a losing look at local win). */
static uint64_t trial_level(const struct rcl_adaptive_state *st) {
    int n = st->trial_nwalls; /* (confirm_wall: their sum; an epoch without one adds 0) */
    return n >= 3 ? (st->confirm_wall - st->trial_max) / (uint64_t)(n - 1)
                  : st->confirm_wall / (uint64_t)n;
}

bool rcl_adaptive_decide(struct rcl_adaptive_state *st, enum rcl_path cur,
                         const struct rcl_epoch *ep) {
    enum rcl_path other = cur == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
    uint64_t mean = ep->mean, wall = ep->wall;
    st->due_ns = 0; /* (set again below while a trial of the server is held) */
    /* The path's estimate: a trial epoch's mean as it is; a steady epoch's smoothed (3/4 of
     * the old estimate), so that an exploration is compared with the path's level, not with
     * one epoch that a preempted holder made look twice as slow (kvstore at 4 threads on 2
     * CPUs switched 45 times a second on such epochs). Samplers read it (cap). */
    bool steady = !st->confirming && !st->exploring;
    /* Crowded for a second after an epoch found it so: the callers an epoch counts are those
     * that sampled lately, and under contention on 2 CPUs that can be one or two of four
     * (the others wait for a preempted holder); a lock seen crowded now and then must not get
     * the plain explorations and short confirmations meanwhile (kvstore at 4 threads: 2-13 %
     * of the calls delegated in some 1.5 s runs). */
    if (ep->crowded && ep->now_ns) {
        if (!st->crowded_since_ns) st->crowded_since_ns = ep->now_ns;
        st->crowded_seen_ns = ep->now_ns;
    }
    bool crowded = ep->now_ns && st->crowded_seen_ns &&
                   ep->now_ns - st->crowded_seen_ns < RCL_CROWDED_TRIAL_NS;
    /* Waiting: the lock's sections wait on a condition (in the last second). Such a call's
     * time is mostly the wait for another thread's signal, which says how fast the *other*
     * threads go, not what this path costs; and a delegated wait costs hand-overs of the
     * server that the waiting caller's clock counts as waiting (a servicing thread blocks,
     * another polls, the woken one needs the server's core again). So the lock's trials are
     * judged by its calls per second alone, over RCL_CROWDED_CONFIRM_NS, and come as rarely
     * as a crowded lock's (rcl-bench-cond's thread pool and producer/consumer queue: the
     * per-call comparison chose delegation for 0.3-0.7x of the original's throughput on 2
     * CPUs; a machine where delegating them pays -- libuv's queue_work ran 2x faster
     * delegated -- still finds it, by calls per second). */
    if (ep->waited && ep->now_ns) {
        if (!st->crowded_since_ns) st->crowded_since_ns = ep->now_ns;
        st->waiting_seen_ns = ep->now_ns;
    }
    bool waiting = ep->now_ns && st->waiting_seen_ns &&
                   ep->now_ns - st->waiting_seen_ns < RCL_CROWDED_TRIAL_NS;
    __atomic_store_n(&st->est[cur], steady ? rcl_smooth(st->est[cur], mean) : mean,
                     __ATOMIC_RELAXED);
    /* (an epoch during another lock's trial by calls per second measured that trial as much as
     * this path: not a reference; see "one trial at a time") */
    if (steady && wall && !ep->other_trial) note_wall(st, cur, wall);
    st->epochs++;
    /* Preempted: the lock delegates, its server waited for its CPU a quarter of the time it
     * wanted it, and the lock's calls per second fell clearly below the local path's (by twice
     * the margin) -- or, where this epoch or the local path has no calls per second (an
     * exploration; a lock that went to the server at its first epoch), its calls cost no less
     * than the local path's less the margin -- in two delegated epochs in a row (one is a
     * blip: another process's time slice), or in an exploration of the server (a short look
     * that finds it so need not stay). Every request then waits for the server's next turn on
     * its CPU (beside two busy processes of the same niceness on 2 CPUs, 16x fewer sections
     * delegated than the original's). Back to local at once, whatever was being explored or
     * confirmed -- a delegated epoch ends after 20 ms (a trial's after 5 ms), so within ~50 ms
     * of the server's CPU becoming contended -- and no trial of the server for 100 ms, then
     * twice as long each time it is found preempted again (up to 16 s), as long as that keeps
     * happening. A preempted server that still keeps the calls per second stays: with the
     * program's threads on a slow CPU, delegating to a server that gets a quarter of a fast
     * one may still win (asym-4, docs/results.md: with the server preempted 75-85 % of the
     * time by other jobs, delegation made 1.3-1.6x the original's calls; a first version of the
     * rule, which also fired when the local path's calls per second were unknown or 10 %
     * better, kept adaptive at 0.73x of delegate there). */
    bool preempted =
        cur == RCL_PATH_DELEGATE && ep->preempted >= RCL_PREEMPTED_PERMILLE &&
        (wall && st->wall[other] ? wall * 100 > st->wall[other] * (100 + 2 * RCL_ADAPTIVE_MARGIN)
                                 : mean * 100 >= st->est[other] * (100 - RCL_ADAPTIVE_MARGIN));
    if (cur == RCL_PATH_DELEGATE) st->preempt_hits = preempted ? st->preempt_hits + 1 : 0;
    if (preempted && (st->preempt_hits >= 2 || st->exploring)) {
        st->preempt_hits = 0;
        st->exploring = false;
        st->confirming = false;
        if (ep->now_ns) {
            if (st->preempt_wait_ns && ep->now_ns - st->preempt_seen_ns > 4 * st->preempt_wait_ns)
                st->preempt_wait_ns = 0; /* long ago: start again */
            st->preempt_wait_ns = !st->preempt_wait_ns ? RCL_PREEMPT_FIRST_NS
                                  : st->preempt_wait_ns < RCL_PREEMPT_MAX_NS / 2
                                      ? 2 * st->preempt_wait_ns
                                      : RCL_PREEMPT_MAX_NS;
            st->preempt_seen_ns = ep->now_ns;
        }
        st->compared_at = st->est[other];
        /* The next trial when the wait is over, not explore_every epochs later: a burst of
         * other jobs on the server's CPU passes (asym-4 beside other engineers' builds: a 30 ms
         * burst kept a lock where delegation won 1.6x local for the rest of the run, its local
         * epochs lasting 100-170 ms each). */
        int every = st->explore_every;
        back_off(st, other, 4, false);
        st->explore_every = every < 1 ? 1 : every;
        st->explore_in = 1;
        st->reason = RCL_REASON_SERVER_PREEMPTED;
        return true;
    }
    if (st->confirming) { /* the full epochs on `cur` after its exploration won */
        st->confirm_sum += mean;
        st->confirm_wall += wall;
        if (st->confirm_until_ns && wall) { /* a timed trial: each epoch's calls per second */
            st->trial_min = !st->trial_nwalls || wall < st->trial_min ? wall : st->trial_min;
            st->trial_max = wall > st->trial_max ? wall : st->trial_max;
            st->trial_nwalls++;
        }
        /* Crowded (see below): the confirmation lasts RCL_CROWDED_CONFIRM_NS as well, so that
         * its calls per second include the scheduler's turns among the threads. */
        /* A timed trial (crowded or waiting) needs one epoch, not four: a lock whose calls
         * are slow closes an epoch every 30-100 ms (rcl-bench-cond's thread pool: four epochs
         * kept a losing trial on the server for 28 % of a 0.5 s run). */
        if (++st->confirm_n < (st->confirm_until_ns ? 1 : RCL_CONFIRM_EPOCHS)) return false;
        mean = st->confirm_sum / st->confirm_n;
        wall = st->confirm_wall / st->confirm_n;
        /* A timed trial is judged by its epochs' mean without the worst one, and cut short only
         * when its best epoch loses too: one epoch in which the whole machine stalled (a virtual
         * CPU descheduled for 20 ms: 2,000,000 ticks per sample against 116,000 before and after
         * it) ended a big/little run's trial that was winning 3x, and the lock stayed local for a
         * second, in 4 runs of 10 one afternoon. */
        uint64_t best = wall;
        if (st->confirm_until_ns && st->trial_nwalls) {
            wall = trial_level(st);
            best = st->trial_min;
        }
        /* ... unless its calls per second clearly lose (by twice the margin) after
         * RCL_TRIAL_ABORT_NS: a losing trial then costs a fifth of what it did (kvstore at 4
         * threads on 2 CPUs ran 1.4x slower delegated) -- what lets the first trial come
         * early (RCL_CROWDED_FIRST_NS) -- or lose decisively (by RCL_DECISIVE) in its first two
         * epochs (5 ms each at most): emulated big/little, delegated, looked at local now and
         * then for 16 ms each time, at 0.3x of the delegated calls per second. */
        bool decisive_loss = st->wall[other] && best && best > st->wall[other] * RCL_DECISIVE;
        if (st->confirm_until_ns && ep->now_ns < st->confirm_until_ns &&
            !(decisive_loss && st->trial_nwalls >= 2) &&
            !(st->wall[other] && best &&
              ep->now_ns + RCL_CROWDED_CONFIRM_NS - st->confirm_until_ns >= RCL_TRIAL_ABORT_NS &&
              best * 100 > st->wall[other] * (100 + 2 * RCL_ADAPTIVE_MARGIN)))
            return false;
        st->confirming = false;
        /* The calls must be cheaper, and the lock's calls per second must not drop: a caller's
         * clock does not see a client descheduled between calls because the server took its
         * CPU (kvstore at 4 threads on 2 CPUs: delegated calls 6x faster, the program 1.4x
         * slower), the epochs' wall time does. */
        bool throughput_kept = !wall || !st->wall[other] ||
                               wall * 100 <= st->wall[other] * (100 + RCL_ADAPTIVE_MARGIN);
        /* Calls per second that rose decisively (by RCL_DECISIVE) win whatever the calls' own
         * times say: those of a lock whose threads share a CPU count the turns the clients wait
         * for it (emulated asymmetry, 4 threads on the little CPU: delegated calls made 3x the
         * local path's calls per second while their mean cost per call, 21,000-93,000 ticks,
         * lost to the local path's 56,000, and the lock went back for 40 ms at a third of the
         * speed). */
        bool decisive = wall && st->wall[other] && wall * RCL_DECISIVE <= st->wall[other];
        bool won = st->by_rate /* waiting: calls per second alone, and they must rise */
                       ? wall && st->wall[other] &&
                             wall * 100 < st->wall[other] * (100 - RCL_ADAPTIVE_MARGIN / 2)
                       : (mean * 100 < st->est[other] * (100 - RCL_ADAPTIVE_MARGIN / 2) &&
                          throughput_kept) ||
                             decisive;
        if (won) {
            /* Confirmed: look at the old path again soon -- unless the lock switched a short
             * while ago too: two paths about as good as each other under noise (kvstore at 4
             * threads on 2 CPUs switched 194 times a second), so each switch pushes the next
             * look further away; and not so soon when its calls per second won decisively
             * (by RCL_DECISIVE, over a trial's 50 ms or 4 epochs): the old path is then unlikely to
             * be better a few epochs later, and each look at it costs (emulated big/little: looks
             * at local 40, 80, 160 ms after the switch, each at 0.3x the calls per second). */
            bool flapping = st->switches && st->epochs - st->switched_at < 64;
            int first = decisive ? RCL_DECISIVE_EVERY : 2;
            st->explore_every =
                !flapping ? first
                : st->explore_every < RCL_EXPLORE_MAX / 2
                    ? (2 * st->explore_every > first ? 2 * st->explore_every : first)
                    : RCL_EXPLORE_MAX;
            st->explore_in = st->explore_every;
            st->switched_at = st->epochs;
            st->compared_at = mean;
            restart_walls(st, cur, wall);
            if (cur == RCL_PATH_DELEGATE) {
                st->crowded_every_ns = 0; /* won: once a second again */
                st->preempt_wait_ns = 0;
                st->lost_trial_wall = 0;
            }
            st->reason = faster(cur);
            st->switches++;
            return false; /* stay */
        }
        /* The short exploration's win was noise: back, and explore less often (much less
         * often when its calls per second lost decisively). A trial of the server judged by
         * calls per second leaves what they were there (see "overtaken" below). */
        st->compared_at = st->est[other];
        if (st->by_rate && cur == RCL_PATH_DELEGATE) st->lost_trial_wall = wall;
        return back_off(st, other, 4, decisive_loss);
    }
    if (st->exploring) { /* this epoch tried `cur`, coming from `other` */
        st->exploring = false;
        /* Waiting or crowded: whatever the calls' times, a trial by calls per second, either
         * way. A crowded lock's per-call times say little of what the program gets: a local
         * call waits for holders preempted by the program's own threads, a delegated one does
         * not see its caller descheduled between calls, and the CPU-share scaling
         * (rcl_adaptive_effective) is a guess at that. Judged by them, one unlucky trial
         * settled a lock for the run, either way (emulated big/little, 2 threads unpinned:
         * delegated for 1.3 s of 1.5 s in one run -- the way back was judged by the calls'
         * times -- and in another run, where delegated calls made 7-10x the local path's calls
         * per second, local for the whole run after an exploration whose scaled delegated
         * calls cost 1.4x the local ones). */
        bool by_rate = waiting || crowded;
        if (by_rate && st->nrecent[other] < 3) {
            /* The lock became crowded during the exploration (its first epoch saw one thread):
             * no calls per second to judge a trial by yet (a 50 ms trial of the server
             * without them ran at a thousandth of the local path's calls). Back, and the gate
             * below waits for them. */
            st->explore_in = 1;
            return true;
        }
        if (by_rate || mean * 100 < st->est[other] * (100 - RCL_ADAPTIVE_MARGIN)) {
            /* stay for RCL_CONFIRM_EPOCHS full epochs, whose mean must confirm the win */
            st->confirming = true;
            st->confirm_n = 0;
            st->confirm_sum = 0;
            st->confirm_wall = 0;
            st->by_rate = by_rate;
            st->confirm_until_ns = by_rate ? ep->now_ns + RCL_CROWDED_CONFIRM_NS : 0;
            st->trial_nwalls = 0;
            st->trial_max = 0;
            return false;
        }
        st->compared_at = st->est[other];
        return back_off(st, other, 2, false); /* back to the better one */
    }
    /* Phase change: in two steady epochs in a row, the current path cost at least twice what
     * it cost when the two paths were last compared, and no less than the other path's
     * estimate less the margin -- the other path may be the better one now: try it soon. One
     * epoch alone is noise under contention (a holder preempted, a burst), and a cost that
     * moves among levels all well below the other path's says nothing about it. (Reacting to
     * any 2x move of one epoch's mean explored every few epochs, and each exploration woke the
     * server, which then spun on a core the program needed: 1,700 explorations in 0.5 s, 0.6x
     * pthread's throughput at 2 threads on 2 CPUs.) */
    if (st->compared_at && mean > 2 * st->compared_at &&
        mean * 100 >= st->est[other] * (100 - RCL_ADAPTIVE_MARGIN)) {
        if (++st->phase_hits >= 2) {
            st->phase_hits = 0;
            st->explore_every = 1;
            if (st->explore_in > 1) st->explore_in = 1;
        }
    } else {
        st->phase_hits = 0;
    }
    if (--st->explore_in > 0) return false;
    /* No exploration before the current path's calls per second are known (its first epoch
     * has none): a trial that wins by them decisively needs them (see "decisive"). One epoch
     * more at the start. */
    if (ep->now_ns && !st->nrecent[cur] && st->epochs < 4) {
        st->explore_in = 1;
        return false;
    }
    /* Crowded: delegating would leave the lock's callers fewer CPUs than threads (the server
     * takes one they use). Whether delegation then pays shows only in calls per second over
     * several scheduler turns, not in a 16-call exploration (kvstore at 4 threads on 2 CPUs:
     * delegated calls measured 6x faster, the program ran 1.4x slower, and the lock flapped
     * 20-40 times in 1.5 s). So a trial towards the server starts at most once per
     * RCL_CROWDED_TRIAL_NS, and its confirmation lasts RCL_CROWDED_CONFIRM_NS: a losing trial
     * costs at most 5 % of the time. A lock found crowded waits that long before its first
     * trial, and each losing trial doubles the wait (up to RCL_CROWDED_TRIAL_MAX, a win resets
     * it): there, delegation seldom pays (the program's threads lose a CPU), and a losing
     * trial is what costs (kvstore at 4 threads on 2 CPUs: 0.96x the original with a trial in
     * the first second of a 1 s run, 0.99x for RCL_MODE=local). */
    /* A timed trial (crowded or waiting, either way) is judged against the current path's
     * calls per second: not before three steady epochs measured them (their median). The first
     * one after a start or a switch is often the slowest (threads starting, data moving):
     * judged against it alone, a trial of the server won in one run and lost in the next (the
     * reference's wall time per sample: 654,000 ticks in the epoch before the trial,
     * 24,000-80,000 after). */
    if ((crowded || waiting) && ep->now_ns && st->nrecent[cur] < 3) {
        st->explore_in = 1;
        return false;
    }
    enum rcl_reason hold = RCL_REASON_NONE; /* why the server is not tried now */
    bool timed = crowded || waiting;        /* a trial now would be judged by calls per second */
    crowded = crowded && other == RCL_PATH_DELEGATE;
    waiting = waiting && other == RCL_PATH_DELEGATE;
    uint64_t last = st->trial_ns > st->crowded_since_ns ? st->trial_ns : st->crowded_since_ns;
    /* Overtaken: the last trial of the server lost, and the calls per second the local path
     * makes now (its last three steady epochs) are below what the server made in that trial
     * -- the local path got slower since (threads that started later, or moved to a slower
     * CPU: emulated big/little, where a lock that lost its first trial against the local
     * path's first epochs then made half the delegated calls per second for a whole second,
     * until the next trial). The next trial need not wait its second then; it still waits
     * RCL_CROWDED_FIRST_NS after the last one. */
    bool overtaken = st->lost_trial_wall && st->nrecent[cur] >= 3 &&
                     st->wall[cur] * 100 > st->lost_trial_wall * (100 + RCL_ADAPTIVE_MARGIN) &&
                     ep->now_ns - last >= RCL_CROWDED_FIRST_NS;
    if (other == RCL_PATH_DELEGATE && st->preempt_wait_ns && ep->now_ns &&
        ep->now_ns - st->preempt_seen_ns < st->preempt_wait_ns)
        hold = RCL_REASON_SERVER_PREEMPTED;
    else if ((crowded || waiting) && ep->now_ns - last < crowded_wait(st) && !overtaken)
        hold = waiting ? RCL_REASON_CONDITION_WAITS : RCL_REASON_CROWDED;
    else if (timed && ep->other_trial)
        hold = RCL_REASON_OTHER_TRIAL; /* either way: one trial at a time */
    else if (other == RCL_PATH_DELEGATE && ep->server_saturated)
        hold = RCL_REASON_SERVER_SATURATED;
    if (hold != RCL_REASON_NONE) {
        /* (preempted, crowded, waiting: looked at again at every epoch until the wait is
         * over, and the epoch that runs then ends when it is: close_epoch) */
        st->explore_in =
            st->explore_every < 1 || hold != RCL_REASON_SERVER_SATURATED ? 1 : st->explore_every;
        st->due_ns = hold == RCL_REASON_SERVER_PREEMPTED ? st->preempt_seen_ns + st->preempt_wait_ns
                     : hold == RCL_REASON_CROWDED || hold == RCL_REASON_CONDITION_WAITS
                         ? last + crowded_wait(st)
                         : 0;
        st->reason = hold;
        return false;
    }
    st->exploring = true;
    st->explore_timed = timed;
    st->reason = RCL_REASON_EXPLORING;
    if (other == RCL_PATH_DELEGATE) {
        st->trial_ns = ep->now_ns;
        st->crowded_trial = crowded || waiting;
        st->crowded_tried |= crowded || waiting;
    }
    return true;
}

/* The server's poller served requests and found no idle moment since the last look (a parked
 * server serves nothing: it is idle, not saturated). */
static bool server_saturated(struct rcl_server *s, struct rcl_adaptive_state *st) {
    uint64_t served = atomic_load_explicit(&s->served, memory_order_relaxed);
    uint64_t idle = atomic_load_explicit(&s->idle_passes, memory_order_relaxed) +
                    atomic_load_explicit(&s->parks, memory_order_relaxed);
    bool saturated = st->epochs && served != st->seen_served && idle == st->seen_idle;
    st->seen_served = served;
    st->seen_idle = idle;
    return saturated;
}

/* The CPUs the lock's callers can use on `path`: delegating takes the server CPUs away. */
static unsigned usable_cpus(enum rcl_path path, int cpus, int server_cpus) {
    int usable = path == RCL_PATH_DELEGATE ? cpus - server_cpus : cpus;
    return usable < 1 ? 1 : (unsigned)usable;
}

uint64_t rcl_adaptive_effective(uint64_t mean, enum rcl_path path, unsigned threads, int cpus,
                                int server_cpus) {
    unsigned usable = usable_cpus(path, cpus, server_cpus);
    if (threads <= usable) return mean; /* every caller has a CPU of its own */
    return mean * threads / usable;
}

/* The calling thread's CPUs and how many of them run servers, looked up every 256 epochs it
 * closes (a system call). */
static void caller_cpus(int *cpus, int *server_cpus) {
    if (!tls_cpus.cpus || ++tls_cpus.age % 256 == 0) {
        cpu_set_t set;
        int n = 0, ns = 0;
        if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0) {
            n = CPU_COUNT(&set);
            for (int i = 0; i < rcl_rt.nservers; i++) {
                int c = rcl_rt.pl.server_cpus[i];
                if (c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &set)) ns++;
            }
        }
        tls_cpus.cpus = n > 0 ? n : 1;
        tls_cpus.server_cpus = ns;
    }
    *cpus = tls_cpus.cpus;
    *server_cpus = tls_cpus.server_cpus;
}

/* How many threads call the lock: those that sampled in the current window of 4 epochs, or in
 * the previous one if it saw more (a thread adds a sample batch only every 128 calls or so). */
static unsigned callers_of(struct rcl_lock_entry *e) {
    unsigned now =
        (unsigned)__builtin_popcountll(atomic_load_explicit(&e->callers, memory_order_relaxed));
    unsigned n = now > e->last_callers ? now : e->last_callers;
    if (e->st.epochs % 4 == 3) {
        e->last_callers = (unsigned)__builtin_popcountll(
            atomic_exchange_explicit(&e->callers, 0, memory_order_relaxed));
    }
    return n ? n : 1;
}

/* rcl_ticks() per millisecond, measured against CLOCK_MONOTONIC between two epoch closes 10 ms
 * or more apart (the first closes note the pair, under a small lock, until it is known); 1 GHz
 * before that, so that a deadline comes early rather than late. */
static uint64_t ticks_per_ms(uint64_t ticks, uint64_t ns) {
#ifdef RCL_TICKS_ARE_NS
    (void)ticks, (void)ns;
    return 1000000;
#else
    static _Atomic uint64_t per_ms;
    static rcl_spin_t lock;
    static uint64_t t0, n0;
    uint64_t v = atomic_load_explicit(&per_ms, memory_order_relaxed);
    if (v) return v;
    rcl_spin_lock(&lock);
    if (!n0) {
        t0 = ticks;
        n0 = ns;
    } else if (ns > n0 + 10000000 && ticks > t0) {
        atomic_store_explicit(&per_ms, (ticks - t0) / ((ns - n0) / 1000) * 1000,
                              memory_order_relaxed);
    }
    rcl_spin_unlock(&lock);
    v = atomic_load_explicit(&per_ms, memory_order_relaxed);
    return v ? v : 1000000;
#endif
}

/* RCL_ADAPTIVE_LOG=FILE: one line per decision (appended with one write(2) each, so the lines
 * of locks deciding at once do not mix). A diagnostic: what each run decided, when, and on what
 * measures (docs/runtime.md, "Adaptive mode"). Opened by the first closer that logs. */
static _Atomic int log_fd = -1;
static uint64_t log_t0; /* written before log_fd is published (release) */

static int log_open(void) {
    int fd = atomic_load_explicit(&log_fd, memory_order_acquire);
    if (fd >= 0 || !rcl_rt.cfg.adaptive_log) return fd;
    static _Atomic bool tried;
    if (atomic_exchange_explicit(&tried, true, memory_order_relaxed)) return -1; /* another */
    fd = open(rcl_rt.cfg.adaptive_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        rcl_warn("RCL_ADAPTIVE_LOG: cannot open %s", rcl_rt.cfg.adaptive_log);
        return -1;
    }
    log_t0 = rcl_now_ns();
    char head[96];
    int len = snprintf(head, sizeof head, "# t0 %llu ns (CLOCK_MONOTONIC), pid %d\n",
                       (unsigned long long)log_t0, (int)getpid());
    if (len > 0 && write(fd, head, (size_t)len) != len) { /* a diagnostic: never mind */
    }
    atomic_store_explicit(&log_fd, fd, memory_order_release);
    return fd;
}

static const char *reason_text(enum rcl_reason r);

static void log_decision(struct rcl_lock_entry *e, uint32_t word, const struct rcl_epoch *ep,
                         uint32_t n, unsigned threads, bool confirming, uint32_t next) {
    int fd = log_open();
    if (fd < 0) return;
    char line[320];
    const struct rcl_adaptive_state *st = &e->st;
    int len =
        snprintf(line, sizeof line,
                 "%.3f ms lock %ld %s%s n %u mean %llu wall %llu threads %u%s%s%s preempted %u est "
                 "%llu/%llu -> %s%s (%s)\n",
                 ep->now_ns > log_t0 ? (double)(ep->now_ns - log_t0) / 1e6 : 0.0, (long)(e - table),
                 word & 1 ? "delegate" : "local",
                 word & RCL_PATH_EXPLORING ? "+explore"
                 : confirming              ? "+confirm"
                                           : "",
                 n, (unsigned long long)ep->mean, (unsigned long long)ep->wall, threads,
                 ep->crowded ? " crowded" : "", ep->waited ? " waited" : "",
                 ep->server_saturated ? " saturated" : "", ep->preempted,
                 (unsigned long long)st->est[RCL_PATH_LOCAL],
                 (unsigned long long)st->est[RCL_PATH_DELEGATE], next & 1 ? "delegate" : "local",
                 next & RCL_PATH_EXPLORING ? "+explore" : "", reason_text(st->reason));
    if (len > 0) {
        ssize_t w = write(fd, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
        (void)w; /* a diagnostic: nothing to do about a short write */
    }
}

/* One trial at a time: a trial judged by calls per second (a crowded or waiting lock's, either
 * way) measures the whole program's pace, and so does every other lock's epoch meanwhile. Two
 * locks of a thread pool tried at once (their first trials fall due together, 50 ms after the
 * start) each saw the other's trial in its calls per second: the result lock's trial of the
 * server "won" by 2.6x when the queue lock's losing trial ended in the middle of it, and the
 * lock delegated for the rest of the run (rcl-bench-cond's pool, 1 job in flight: 12-21 % of
 * runs delegated, at 0.60-0.94x of the original). So such a trial holds a token for the process
 * while it runs (trial_live: the owner's slot + 1 in the top 16 bits, the milliseconds
 * (CLOCK_MONOTONIC) until which it holds in the others; renewed by each of its epochs, so a lock
 * that stops being called mid-trial releases it by itself within RCL_TRIAL_HOLD_MS), and leaves
 * when it ended (trial_ended, same layout). Another lock's trial waits for it
 * (RCL_REASON_OTHER_TRIAL), and an epoch that overlapped it is no lock's reference (its calls per
 * second are not its path's). Written by epoch closers, each for its own slot: CAS to take a
 * free or lapsed token, CAS to give it back; a take that races with another's (both found it
 * free in the same instant) loses the CAS and runs anyway, untracked -- the two trials then
 * overlap as before; this is a measurement's hygiene, not a correctness protocol. */
#define RCL_TRIAL_HOLD_MS 50
static _Atomic uint64_t trial_live, trial_ended;
static inline uint64_t trial_word(long slot, uint64_t ms) {
    return (uint64_t)(slot + 1) << 48 | (ms & ((1ull << 48) - 1));
}
static inline long trial_owner(uint64_t w) {
    return (long)(w >> 48) - 1;
}
static inline uint64_t trial_ms(uint64_t w) {
    return w & ((1ull << 48) - 1);
}

static void close_epoch(struct rcl_lock_entry *e, struct rcl_server *s) {
    uint32_t zero = 0;
    if (!atomic_compare_exchange_strong_explicit(&e->closing, &zero, 1, memory_order_acquire,
                                                 memory_order_relaxed))
        return;
    uint32_t n = atomic_exchange_explicit(&e->samples, 0, memory_order_relaxed);
    uint64_t sum = atomic_exchange_explicit(&e->sum, 0, memory_order_relaxed);
    if (n) {
        uint32_t word = atomic_load_explicit(&e->path, memory_order_relaxed);
        enum rcl_path cur = word & 1;
        int cpus, server_cpus;
        caller_cpus(&cpus, &server_cpus);
        unsigned threads = callers_of(e);
        struct rcl_epoch ep;
        ep.mean = rcl_adaptive_effective(sum / n, cur, threads, cpus, server_cpus);
        uint64_t now = rcl_ticks(), began = e->epoch_began;
        e->epoch_began = now;
        /* per RCL_ADAPTIVE_SAMPLE calls, whatever the epoch's sampling rate */
        ep.wall = began && !(word & RCL_PATH_EXPLORING)
                      ? (now - began) * RCL_ADAPTIVE_SAMPLE / ((uint64_t)n * sample_rate(word))
                      : 0;
        ep.now_ns = rcl_now_ns();
        /* delegated: is its server preempted? (a file read every 2 ms at most: preempt.c) */
        ep.preempted = cur == RCL_PATH_DELEGATE ? rcl_server_preempted(s, ep.now_ns) : 0;
        ep.server_saturated = server_saturated(s, &e->st);
        ep.crowded = server_cpus > 0 && threads > usable_cpus(RCL_PATH_DELEGATE, cpus, server_cpus);
        uint32_t waits = atomic_load_explicit(&e->waits, memory_order_relaxed);
        ep.waited = waits != e->seen_waits;
        e->seen_waits = waits;
        /* another lock's trial by calls per second runs now, or ended during this epoch */
        long slot = (long)(e - table);
        uint64_t now_ms = ep.now_ns / 1000000, began_ms = e->epoch_began_ms;
        uint64_t live = atomic_load_explicit(&trial_live, memory_order_relaxed);
        uint64_t ended = atomic_load_explicit(&trial_ended, memory_order_relaxed);
        ep.other_trial = (live && trial_owner(live) != slot && trial_ms(live) >= now_ms) ||
                         (ended && trial_owner(ended) != slot && trial_ms(ended) >= began_ms);
        e->epoch_began_ms = now_ms;
        bool confirming = e->st.confirming;
        if (rcl_adaptive_decide(&e->st, cur, &ep))
            cur = cur == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
        bool trying =
            e->st.exploring ? e->st.explore_timed : e->st.confirming && e->st.confirm_until_ns;
        if (trying) { /* take the token, or renew ours */
            if (!live || trial_owner(live) == slot || trial_ms(live) < now_ms)
                atomic_compare_exchange_strong_explicit(
                    &trial_live, &live, trial_word(slot, now_ms + RCL_TRIAL_HOLD_MS),
                    memory_order_relaxed, memory_order_relaxed);
        } else if (live && trial_owner(live) == slot &&
                   atomic_compare_exchange_strong_explicit(
                       &trial_live, &live, 0, memory_order_relaxed, memory_order_relaxed)) {
            atomic_store_explicit(&trial_ended, trial_word(slot, now_ms), memory_order_relaxed);
        }
        if (e->st.exploring)
            atomic_store_explicit(&e->warmup, RCL_EXPLORE_WARMUP, memory_order_relaxed);
        /* Settled (the last explorations lost, nothing to confirm): sampling one call in
         * RCL_SAMPLE_SETTLED instead of RCL_ADAPTIVE_SAMPLE. A timed call enters the library
         * and reads the clock twice (kvstore, 1 thread: 16 -> 64 took adaptive from 0.94x to
         * 0.975x of local), and below one call in 100 the timed calls leave the p99 latency
         * alone (rcl-bench-micro, 1 thread: 70 ns at 1 in 64, pthread's 41 ns); a phase change
         * or a won exploration brings the dense rate back. */
        bool settled =
            !e->st.exploring && !e->st.confirming &&
            (e->st.explore_every >= RCL_SETTLED_EVERY || e->st.reason == RCL_REASON_CROWDED ||
             e->st.reason == RCL_REASON_CONDITION_WAITS ||
             e->st.reason == RCL_REASON_SERVER_PREEMPTED); /* no trial for a while */
        /* Epochs that end on time as well as at RCL_ADAPTIVE_EPOCH samples: a timed trial's
         * (sampled densely, 5 ms at most), so that its quick abort comes after 10 ms whatever
         * the calls cost -- before, the epoch had to fill first, and a trial of the server
         * whose delegated calls were 5-20x slower lasted 15 to 95 ms instead of 10 (pc-4:
         * 390,000 items/s in the run whose trial lasted 67 ms, 540,000-630,000 with 15-25 ms);
         * an exploration's (5 ms, 4 samples at least after its untimed calls: beside two busy
         * processes, 20 delegated calls of 8 threads took 30 ms); and every delegated epoch
         * (20 ms at most), so that a server whose CPU became contended is noticed within
         * ~50 ms, not after 64 samples of calls 16x slower. And the epoch of a local lock
         * whose trial of the server is held (crowded, waiting, preempted) ends when the trial
         * is due: sampled as a settled lock, its epochs are 8x longer, and the first trial
         * came one such epoch late (emulated big/little: at 120 ms instead of 50, at 0.3x of
         * the delegated calls per second meanwhile). */
        bool trial = e->st.confirming && e->st.confirm_until_ns;
        bool held = cur == RCL_PATH_LOCAL && !e->st.exploring && !e->st.confirming &&
                    e->st.due_ns > ep.now_ns;
        bool timed = trial || e->st.exploring || cur == RCL_PATH_DELEGATE || held;
        uint64_t tpm = timed ? ticks_per_ms(now, ep.now_ns) : 0;
        if (timed)
            atomic_store_explicit(
                &e->deadline,
                held ? now + tpm * (e->st.due_ns - ep.now_ns) / 1000000
                     : now + tpm * ((trial || e->st.exploring ? RCL_TRIAL_EPOCH_NS
                                                              : RCL_DELEGATED_EPOCH_NS) /
                                    1000000),
                memory_order_relaxed);
        uint32_t next = cur | (e->st.exploring ? RCL_PATH_EXPLORING : 0) |
                        (settled ? RCL_PATH_SETTLED : 0) | (timed ? RCL_PATH_TIMED : 0) |
                        (trial ? RCL_PATH_TRIAL : 0);
        if (rcl_rt.cfg.adaptive_log) log_decision(e, word, &ep, n, threads, confirming, next);
        /* release: a sampler that sees the new word (acquire, flush_samples) sees its deadline */
        atomic_store_explicit(&e->path, next, memory_order_release);
    }
    atomic_store_explicit(&e->closing, 0, memory_order_release);
}

/* Stepping off the servers' cores while the thread delegates (placement.c, "Stepping off"):
 * the lock that moved it off (NULL: on), its last delegated call, and whether it looked at its
 * CPUs yet or found them chosen by the program. Its own thread only. */
static RCL_TLS struct {
    struct rcl_lock_entry *e;
    uint64_t last; /* rcl_ticks() */
    bool seen, refused;
} tls_step;
#define RCL_STEP_ON_MS 10 /* back on 10 ms after the thread's last delegated call */

static void step(struct rcl_lock_entry *e, uint32_t path) {
    if (!rcl_rt.pl.step_clients || rcl_self_server) return; /* (a server thread never steps) */
    if (!tls_step.seen) {
        tls_step.seen = true;
        rcl_placement_step_inherited(&rcl_rt.pl);
    }
    if ((path & RCL__PATH_RUN) == RCL_PATH_DELEGATE) { /* delegated, not a short exploration */
        tls_step.last = rcl_ticks();
        if (!tls_step.e && !tls_step.refused) {
            if (rcl_placement_step_off(&rcl_rt.pl))
                tls_step.e = e;
            else
                tls_step.refused = true;
        }
    } else if (tls_step.e) {
        uint64_t now = rcl_ticks();
        if (tls_step.e == e ||
            now - tls_step.last > RCL_STEP_ON_MS * ticks_per_ms(now, rcl_now_ns())) {
            rcl_placement_step_on(&rcl_rt.pl);
            tls_step.e = NULL;
        }
    }
}

void rcl_adaptive_after_fork_child(void) {
    if (tls_step.e) rcl_placement_step_on(&rcl_rt.pl);
    tls_step.e = NULL;
}

enum rcl_path rcl_adaptive_begin(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx,
                                 struct rcl_adaptive_call *call, bool *sample) {
    struct rcl__fast_way *w = rcl__fast_way_of(lock);
    bool due = w->rcl__lock == lock && w->rcl__left == 0; /* its grant ran out (see tls_rand) */
    call->fn = fn;
    call->ctx = ctx;
    call->e = entry_of(lock, true);
    uint32_t flip = (uint32_t)rcl_rt.cfg.adaptive_flip;
    if (flip) { /* test knob: each thread alternates every `flip` calls */
        *sample = false;
        enum rcl_path p = (++tls_flip_calls / flip) & 1 ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
        if (call->e) step(call->e, p);
        return p;
    }
    if (!call->e) {
        /* Not tracked (the table is full around the lock's hash: a program with thousands of
         * locks, memcached's item locks): nothing measures it, so it runs as the original does.
         * Delegated, unmeasured, such locks ran memcached at 0.35x of the original. */
        *sample = false;
        return RCL_PATH_LOCAL;
    }
    uint32_t path = atomic_load_explicit(&call->e->path, memory_order_relaxed);
    step(call->e, path);
    /* An exploration times every call, so that it is short: a losing path costs few calls. Its
     * first RCL_EXPLORE_WARMUP calls are not timed: they pay for what only a switch costs once
     * (an idle server parked in the kernel wakes up, the data moves to its cache; measured: a
     * lock whose delegated calls cost a third of its local ones was judged 1.3x slower
     * delegated, every time). */
    unsigned rate = sample_rate(path), phase = 0;
    if (!due) phase = next_rand() % rate; /* 0: timed */
    if (path & RCL_PATH_EXPLORING)
        *sample = atomic_fetch_sub_explicit(&call->e->warmup, 1, memory_order_relaxed) <= 0;
    else
        *sample = phase == 0;
    if ((path & RCL__PATH_RUN) == RCL_PATH_LOCAL && rcl_rt.fast_ok) {
        /* The calls before this thread's next timed one of the lock run inline (delegate.c,
         * "The inline fast path"); the next one entering is due. */
        unsigned left = phase ? phase - 1 : rate - 1;
        w->rcl__lock = lock;
        w->rcl__left = left;
        w->rcl__path = (const unsigned *)&call->e->path;
    } else if (due) {
        w->rcl__lock = NULL; /* used: a delegated lock's calls all enter, and are not all due */
    }
    return (enum rcl_path)(path & 1);
}

const struct rcl_adaptive_state *rcl__adaptive_state(pthread_mutex_t *lock) {
    struct rcl_lock_entry *e = entry_of(lock, false);
    return e ? &e->st : NULL;
}

void rcl_adaptive_wait(pthread_mutex_t *lock) {
    struct rcl_lock_entry *e = entry_of(lock, false); /* only adaptive mode makes entries */
    if (e) /* under the mutex: one writer; the closer reads it */
        atomic_store_explicit(&e->waits, atomic_load_explicit(&e->waits, memory_order_relaxed) + 1,
                              memory_order_relaxed);
}

int rcl_adaptive_run(void *arg) {
    struct rcl_adaptive_call *call = arg;
    struct rcl_lock_entry *e = call->e;
    if (!e->calls++) e->first_site = call->site;              /* the mutex is held: one writer */
    e->delegated += rcl_self_server != NULL || rcl_as_caller; /* (as its caller: caller.c) */
    return call->fn(call->ctx);
}

/* Adds the thread's batch to its entry's sums, unless the entry's path changed meanwhile (the
 * samples then belong to an epoch already closed: dropped). May close the epoch. */
static void flush_samples(void) {
    struct rcl_lock_entry *e = tls_acc.e;
    uint32_t n = tls_acc.n;
    uint64_t sum = tls_acc.sum;
    tls_acc.n = 0;
    tls_acc.sum = 0;
    if (!e || !n || atomic_load_explicit(&e->path, memory_order_acquire) != tls_acc.path) return;
    atomic_fetch_add_explicit(&e->sum, sum, memory_order_relaxed);
    uint32_t epoch = tls_acc.path & RCL_PATH_EXPLORING ? RCL_EXPLORE_EPOCH : RCL_ADAPTIVE_EPOCH;
    uint32_t total = atomic_fetch_add_explicit(&e->samples, n, memory_order_relaxed) + n;
    if (total >= epoch || ((tls_acc.path & RCL_PATH_TIMED) && total >= RCL_TIMED_MIN &&
                           rcl_ticks() >= atomic_load_explicit(&e->deadline, memory_order_relaxed)))
        close_epoch(e, tls_acc.s);
}

void rcl_adaptive_end(struct rcl_adaptive_call *call, struct rcl_server *s, uint64_t ticks) {
    struct rcl_lock_entry *e = call->e;
    uint32_t path = atomic_load_explicit(&e->path, memory_order_relaxed);
    if (tls_acc.e != e || tls_acc.path != path || !tls_acc.n) {
        if (tls_acc.n) flush_samples();
        tls_acc.e = e;
        tls_acc.s = s;
        tls_acc.path = path;
        /* One call preempted for a whole time slice must not decide an epoch alone: a sample
         * counts at most RCL_SAMPLE_CAP times the path's last estimate (a racy read: a hint;
         * once per batch, not per sample: the decision's line is written by the closers). */
        tls_acc.cap = RCL_SAMPLE_CAP * __atomic_load_n(&e->st.est[path & 1], __ATOMIC_RELAXED);
    }
    if (tls_acc.cap && ticks > tls_acc.cap) ticks = tls_acc.cap;
    if (!tls_thread)
        tls_thread = atomic_fetch_add_explicit(&next_thread, 1, memory_order_relaxed) + 1;
    uint64_t bit = 1ull << (tls_thread % 64);
    if (!(atomic_load_explicit(&e->callers, memory_order_relaxed) & bit))
        atomic_fetch_or_explicit(&e->callers, bit, memory_order_relaxed);
    tls_acc.n++;
    tls_acc.sum += ticks;
    /* An exploration is short, and a timed epoch may end at any sample: their samples go out
     * one by one. */
    if ((path & (RCL_PATH_EXPLORING | RCL_PATH_TIMED)) || tls_acc.n >= RCL_SAMPLE_BATCH)
        flush_samples();
}

static const char *reason_text(enum rcl_reason r) {
    switch (r) {
    case RCL_REASON_NONE:
        return "none yet";
    case RCL_REASON_EXPLORING:
        return "exploring the other path";
    case RCL_REASON_DELEGATE_FASTER:
        return "delegation measured faster";
    case RCL_REASON_LOCAL_FASTER:
        return "local measured faster";
    case RCL_REASON_SERVER_SATURATED:
        return "server saturated";
    case RCL_REASON_CROWDED:
        return "the server would take a CPU the callers use";
    case RCL_REASON_CONDITION_WAITS:
        return "its sections wait on a condition: the server is tried rarely";
    case RCL_REASON_SERVER_PREEMPTED:
        return "the server was preempted: its CPU is contended";
    case RCL_REASON_OTHER_TRIAL:
        return "another lock's trial is running: one at a time";
    }
    return "?";
}

/* Locks named by one call site (a pool's mutexes, first taken by one line) get "@i/n", i
 * counting them by address, as rcl-prof does (profiler.md, "Lock identity"): each then has a
 * name of its own. names[i] is table[i]'s name, or "" for a slot not reported. */
#define RCL_NAME_LEN 160
static void distinct_site_names(char (*names)[RCL_NAME_LEN], const bool *by_site) {
    unsigned rank[RCL_ADAPTIVE_SLOTS], count[RCL_ADAPTIVE_SLOTS];
    for (int i = 0; i < RCL_ADAPTIVE_SLOTS; i++) {
        rank[i] = count[i] = 1;
        if (!by_site[i]) continue;
        uintptr_t self = (uintptr_t)atomic_load_explicit(&table[i].key, memory_order_relaxed);
        for (int j = 0; j < RCL_ADAPTIVE_SLOTS; j++) {
            if (j == i || !by_site[j] || strcmp(names[i], names[j]) != 0) continue;
            count[i]++;
            if ((uintptr_t)atomic_load_explicit(&table[j].key, memory_order_relaxed) < self)
                rank[i]++;
        }
    }
    for (int i = 0; i < RCL_ADAPTIVE_SLOTS; i++) {
        size_t len = strlen(names[i]);
        if (count[i] > 1) snprintf(names[i] + len, RCL_NAME_LEN - len, "@%u/%u", rank[i], count[i]);
    }
}

void rcl_adaptive_report(FILE *f, bool json) {
    bool first = true;
    /* at exit, once: 1024 names of 160 bytes are not for the stack */
    char(*names)[RCL_NAME_LEN] = calloc(RCL_ADAPTIVE_SLOTS, RCL_NAME_LEN);
    bool *by_site = calloc(RCL_ADAPTIVE_SLOTS, sizeof *by_site);
    const char *identities[RCL_ADAPTIVE_SLOTS];
    for (int i = 0; i < RCL_ADAPTIVE_SLOTS; i++) {
        pthread_mutex_t *k = atomic_load_explicit(&table[i].key, memory_order_acquire);
        identities[i] = NULL;
        if (!k || !table[i].calls || !names || !by_site) continue;
        identities[i] = rcl_lock_name(k, table[i].first_site, names[i], RCL_NAME_LEN - 16);
        by_site[i] = strcmp(identities[i], "site") == 0;
    }
    if (names && by_site) distinct_site_names(names, by_site);
    for (int i = 0; i < RCL_ADAPTIVE_SLOTS; i++) {
        struct rcl_lock_entry *e = &table[i];
        pthread_mutex_t *k = atomic_load_explicit(&e->key, memory_order_acquire);
        if (!k || !e->calls) continue;
        char own[RCL_NAME_LEN], site[160] = "";
        const char *identity = identities[i];
        const char *name = identity ? names[i] : own;
        if (!identity) identity = rcl_lock_name(k, e->first_site, own, sizeof own);
        if (e->first_site) rcl_site_name(e->first_site, site, sizeof site);
        double pct = 100.0 * (double)e->delegated / (double)e->calls;
        if (json)
            fprintf(f,
                    "%s\n  {\"lock\": \"%s\", \"identity\": \"%s\", \"address\": \"%p\", "
                    "\"first_site\": \"%s\", \"calls\": %llu, \"delegated_percent\": %.1f, "
                    "\"switches\": %u, \"path\": \"%s\", \"last_reason\": \"%s\", "
                    "\"local_ticks\": %llu, \"delegated_ticks\": %llu}",
                    first ? "" : ",", name, identity, (void *)k, site, (unsigned long long)e->calls,
                    pct, e->st.switches, (e->path & 1) == RCL_PATH_LOCAL ? "local" : "delegate",
                    reason_text(e->st.reason), (unsigned long long)e->st.est[RCL_PATH_LOCAL],
                    (unsigned long long)e->st.est[RCL_PATH_DELEGATE]);
        else
            fprintf(f,
                    "rcl: lock %s: %llu calls, %.1f %% delegated, %u switches, now %s (last "
                    "reason: %s; measured per call: local %llu, delegated %llu ticks)\n",
                    name, (unsigned long long)e->calls, pct, e->st.switches,
                    (e->path & 1) == RCL_PATH_LOCAL ? "local" : "delegated",
                    reason_text(e->st.reason), (unsigned long long)e->st.est[RCL_PATH_LOCAL],
                    (unsigned long long)e->st.est[RCL_PATH_DELEGATE]);
        first = false;
    }
    free(names);
    free(by_site);
}
