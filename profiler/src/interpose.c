/*
 * interpose.c - the wrappers the program calls instead of libc's pthread functions, and the
 * hooks librcl calls for delegated critical sections.
 *
 * Hot path of pthread_mutex_lock (the "plain" case, see fill_slot): this thread's cache entry
 * for (mutex, call site) (tcache.c; the lock table is consulted only on a miss), a look at the
 * mutex's lock word and kind, then an increment in the entry and a push on the thread's stack
 * of held locks, all before the lock is taken, and a tail call of the real lock. Its unlock
 * counts the hold, pops, and tail-calls the real unlock. Contended acquisitions have their
 * wait timed (two TSC reads around the real lock), and a sample of the critical sections
 * their hold (a TSC read at each end; every one for locks whose sections are not known to be
 * short); those are counted once the lock is held, and their hold once it is released. No
 * locked instruction and no write to shared memory on either path.
 *
 * Sampled counts (RCL_PROF_COUNT_EVERY=N > 1, rcl-prof --count-every N): pthread_mutex_lock
 * first passes on, unrecorded, as many calls as the thread's countdown says (t->skip, drawn at
 * random with mean N at each recorded call, so that no period of the program aliases with it),
 * at the cost of a decrement of thread-private memory; the call that finds it run out is
 * recorded as above with the weight of the calls it stands for (the interval), and every count
 * it makes (acquisitions, call site, contended, wait, holds) is multiplied by that weight: the
 * sums are unbiased estimates, and each thread's total of acquisitions is exact up to its last
 * recorded call. The countdown runs only while the thread is `fast` (prof_thread_recheck zeroes it
 * otherwise): the calls of a thread in any other state are each recorded, with weight 1. Every
 * recorded critical section is timed (the per-entry timing sample is for exact counts). A lock
 * passed on is not on the held-locks stack: a recorded one that finds its mutex held by its own
 * thread (glibc's owner word) is nested, not contended, and the release of a recursive mutex that
 * leaves it held is not the recorded hold's end.
 *
 * The thread remembers the locks it holds (struct held, a small stack) to time each critical
 * section; pthread_cond_wait splits the hold around the wait (the time blocked in the wait is
 * neither hold nor wait time).
 *
 * The real functions the wrappers forward to (prof_real) are resolved at start-up
 * (startup.c), which a wrapper called before the library constructor runs first.
 */
#include "prof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <threads.h>
#include <unistd.h>

#include "rcl/prof_hooks.h"

static inline int ready(void) {
    if (PROF_LIKELY(atomic_load_explicit(&prof_ready, memory_order_acquire))) return 1;
    prof_init();
    return atomic_load_explicit(&prof_ready, memory_order_acquire);
}

/* ---- acquisition and release bookkeeping ---- */

/* librcl's server threads are named "rcl-server-<n>" before they take any lock; the runtime may
 * also say so through rcl_prof_server_thread(). Looked at once per thread. */
static __attribute__((noinline)) void classify_thread(struct thread_state *t) {
    char name[17] = {0};
    t->classified = 1;
    if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0 && strncmp(name, "rcl-server-", 11) == 0)
        prof_thread_is_server();
    prof_thread_recheck(t);
}

static inline uint32_t record_index(const struct lock_record *r) {
    return (uint32_t)(r - prof_records);
}

static inline struct tc_entry *cache_slot(struct tcache *c, pthread_mutex_t *m, uint64_t pc) {
    return &c->e[((pc >> 1) ^ ((uintptr_t)m >> 3)) % TC_ENTRIES]; /* direct-mapped */
}

/* Whether e is this thread's current entry for (m, pc): its key, and no mutex has lost its
 * record since e's record was looked up. A hit costs no lookup in the lock table. */
static inline int cache_hit(const struct tc_entry *e, pthread_mutex_t *m, uint64_t pc,
                            uint32_t epoch) {
    return atomic_load_explicit(&e->mutex, memory_order_relaxed) == (uintptr_t)m &&
           atomic_load_explicit(&e->pc, memory_order_relaxed) == pc && e->epoch == epoch;
}

/* This thread's cache entry for (m, pc), or NULL when the thread has no cache (then *rp is
 * m's record, which the caller updates directly). */
static struct tc_entry *cache_entry(struct thread_state *t, pthread_mutex_t *m, uint64_t pc,
                                    int kind, struct lock_record **rp) {
    uint32_t epoch = atomic_load_explicit(&prof_lock_epoch, memory_order_relaxed);
    struct tcache *c = t->tc ? t->tc : t->tc_refused ? NULL : prof_tcache_attach(t);
    *rp = NULL;
    if (!c) {
        *rp = prof_record(m, pc);
        return NULL;
    }
    struct tc_entry *e = cache_slot(c, m, pc);
    if (cache_hit(e, m, pc, epoch)) return e;
    /* epoch was read before this lookup: a destroy in between makes the next use look again */
    struct lock_record *r = prof_record(m, pc);
    if (atomic_load_explicit(&e->mutex, memory_order_relaxed) == (uintptr_t)m &&
        atomic_load_explicit(&e->pc, memory_order_relaxed) == pc &&
        &prof_records[atomic_load_explicit(&e->rec, memory_order_relaxed)] == r) {
        e->epoch = epoch; /* another mutex was destroyed: this one is unchanged */
        return e;
    }
    return prof_tcache_replace(t, e, (uintptr_t)m, pc, record_index(r), epoch, kind);
}

/* A random interval between timed critical sections, of mean `mean` (random, so that a
 * program's own period cannot alias with ours). */
static uint32_t draw_interval(struct thread_state *t, uint32_t mean) {
    uint32_t x = t->rng ? t->rng : (uint32_t)(uintptr_t)t | 1u;
    x ^= x << 13; /* xorshift32 */
    x ^= x >> 17;
    x ^= x << 5;
    t->rng = x;
    return 1 + x % (2 * mean - 1);
}

/* Whether to time this critical section: always, unless the entry's are known to be short;
 * then when the entry's countdown runs out. */
static inline int should_time(struct thread_state *t, struct tc_entry *e) {
    if (PROF_LIKELY(!e || !e->sampled)) return 1;
    if (PROF_LIKELY(e->countdown > 1)) {
        e->countdown--;
        return 0;
    }
    e->countdown = draw_interval(t, e->sample_mean);
    return 1;
}

/* The mean sampling interval of an entry whose first SAMPLE_AFTER critical sections took
 * `ticks` together: RCL_PROF_SAMPLE for sections of about SHORT_CS_TICKS, and as many times
 * more as they are shorter, up to 64 times: timing one costs two TSC reads (10-20 ns each), so
 * the cost of timing per critical section stays about the same share of the section's own
 * cost, while a lock taken a million times still has thousands of timed sections. */
static uint32_t sample_interval(uint64_t ticks) {
    uint64_t avg = ticks / SAMPLE_AFTER;
    uint64_t factor = avg ? SHORT_CS_TICKS / avg : 64;
    factor = factor < 1 ? 1 : factor > 64 ? 64 : factor;
    return (uint32_t)(prof_sample_period * factor);
}

/*
 * An acquisition is "plain" when its thread's cache has the (mutex, site) entry, the entry's
 * critical sections are short and this one is not in the timed sample, and the mutex is a
 * normal one (glibc kind 0, whose lock call cannot fail) that looks free (so it is not this
 * thread's, locked again). pthread_mutex_lock counts a plain acquisition and pushes it on the
 * thread's held-locks stack *before* the lock call, which is the wrapper's tail call: nothing
 * of the profiler runs between the lock instruction and the program's critical section, and
 * the wrapper saves no register. Its unlock counts the hold, pops, and tail-calls the real
 * unlock. A dump written while a thread is inside a plain lock call counts that acquisition
 * already (like every in-flight count of a thread still running at the end: docs/profiler.md,
 * Limits).
 *
 * Every other acquisition is prepared before the lock is taken, in the slot of the held-locks
 * stack just above its top (struct held: the slot is this thread's alone; held[PROF_HELD_MAX]
 * is the spare one, for an acquisition beyond the stack's depth: counted, never pushed nor
 * timed), and counted and pushed once the lock is held (acquired): what runs inside the
 * critical section is the push, one increment in the cache entry and, for a timed or contended
 * acquisition only, the TSC reads and the entry's contention counts. It is released through
 * unlock_slow. The slot is left as garbage when the lock call fails.
 *
 * The slot names the entry its counts go to (h->entry), which stays valid while the lock is
 * held: an entry taken over by another (mutex, site) while a slot refers to it, or released
 * when its thread exits, is first removed from the slot (prof_tcache_replace,
 * prof_tcache_detach), which then counts into the record (h->rec) and is no longer plain. So
 * unlock needs no check.
 */
static inline void fill_slot(struct thread_state *t, struct held *h, pthread_mutex_t *m,
                             struct tc_entry *e, int n) {
    h->mutex = m;
    h->entry = e;
    int nested = 0;
    for (int i = 0; i < n; i++)
        if (t->held[i].mutex == m) nested = 1;
    h->nested = nested;
    h->timed = !nested && n < PROF_HELD_MAX && should_time(t, e);
    h->plain = 0;
    h->weight = 1;
}

/* The slot for an acquisition of m from pc (see above), or NULL: an acquisition not to count (a
 * server's own locking of a lock whose delegated critical sections it runs: the hooks report
 * those). */
static struct held *prepare(struct thread_state *t, pthread_mutex_t *m, uint64_t pc, int kind) {
    if (!t->classified) classify_thread(t);
    if (t->deleg_lock == m) { /* librcl in local mode, inside rcl_delegate */
        pc = t->deleg_site;
        kind = SITE_DELEGATE;
        t->deleg_local_seen = 1;
    }
    if (t->is_server &&
        atomic_load_explicit(&prof_record(m, pc)->has_delegated, memory_order_relaxed))
        return NULL;
    struct lock_record *r;
    struct tc_entry *e = cache_entry(t, m, pc, kind, &r);
    int n = t->nheld;
    struct held *h = &t->held[n];
    fill_slot(t, h, m, e, n);
    h->rec = r;
    h->pc = pc;
    h->site_kind = kind;
    return h;
}

/* acquired's case of a thread without a cache entry: the shared record, atomically. */
static __attribute__((noinline)) void acquired_no_entry(const struct held *h, int contended,
                                                        uint64_t wait_ticks) {
    struct lock_record *r = h->rec;
    prof_add(&r->acquisitions, h->weight, 0);
    prof_count_site(r, h->pc, h->site_kind, h->weight, 0);
    if (contended) {
        prof_add(&r->contended, h->weight, 0);
        prof_add(&r->wait_ticks, wait_ticks * h->weight, 0);
        prof_raise_max(&r->wait_max_ticks, wait_ticks, 0);
    }
}

/* A timed critical section begins. */
static __attribute__((noinline)) void start_timing(struct held *h) {
    h->kind = prof_current_kind();
    if (PROF_UNLIKELY(atomic_load_explicit(&prof_hw_state, memory_order_relaxed) == 1))
        h->misses_at_acquire = prof_read_misses();
    h->acquired_ticks = prof_ticks(); /* last: the bookkeeping above is not hold time */
}

/* The lock is held: count the acquisition in h's entry, push h, and start timing the critical
 * section if it is timed. */
static inline __attribute__((always_inline)) void acquired(struct thread_state *t, struct held *h,
                                                           int contended, uint64_t wait_ticks) {
    struct tc_entry *e = h->entry;
    if (PROF_LIKELY(e != NULL)) {
        prof_add(&e->acquisitions, h->weight, 1);
        if (PROF_UNLIKELY(contended)) {
            prof_add(&e->contended, h->weight, 1);
            prof_add(&e->wait_ticks, wait_ticks * h->weight, 1);
            prof_raise_max(&e->wait_max_ticks, wait_ticks, 1);
        }
    } else {
        acquired_no_entry(h, contended, wait_ticks);
    }
    if (PROF_UNLIKELY(h == &t->held[PROF_HELD_MAX])) {
        atomic_fetch_add_explicit(&prof_holds_untracked, 1, memory_order_relaxed);
        return;
    }
    t->nheld++; /* h is the slot above the top */
    if (h->timed) start_timing(h);
}

/* For the rarer trylock and timedlock: prepared and counted once the lock is held. */
static inline void acquired_now(pthread_mutex_t *m, uint64_t pc, int kind, int contended,
                                uint64_t wait_ticks) {
    struct thread_state *t = &prof_thread;
    struct held *h = prepare(t, m, pc, kind);
    if (h) acquired(t, h, contended, wait_ticks);
}

/* Reads taken at the end of a timed critical section, before the lock is released. */
static inline uint64_t misses_if_counting(const struct held *h) {
    if (PROF_LIKELY(!h->timed || atomic_load_explicit(&prof_hw_state, memory_order_relaxed) != 1))
        return 0;
    return prof_read_misses();
}

/* Accounts the critical section of h up to `now` (read before the lock was released);
 * `ends` when it ends there (an unlock, not a pthread_cond_wait that takes the lock again).
 * Only thread-private memory and atomic adds: it may run after the unlock. */
static void account_hold(const struct held *h, uint64_t now, uint64_t misses_now, int ends) {
    if (h->nested) return;
    struct tc_entry *e = h->entry; /* valid, or NULL: see fill_slot */
    struct lock_record *r =
        e ? &prof_records[atomic_load_explicit(&e->rec, memory_order_relaxed)] : h->rec;
    int excl = e != NULL;
    if (ends) prof_add(e ? &e->holds : &r->holds, h->weight, excl);
    if (!h->timed) return;
    uint64_t hold = now - h->acquired_ticks;
    prof_add(e ? &e->hold_ticks : &r->hold_ticks, hold, excl);
    prof_raise_max(e ? &e->hold_max_ticks : &r->hold_max_ticks, hold, excl);
    if (ends) {
        prof_add(e ? &e->holds_timed : &r->holds_timed, 1, excl);
        if (e &&
            PROF_UNLIKELY(atomic_load_explicit(&e->holds_timed, memory_order_relaxed) ==
                          SAMPLE_AFTER) &&
            prof_sample_period > 1 && prof_count_every == 1 &&
            atomic_load_explicit(&e->hold_ticks, memory_order_relaxed) <
                (uint64_t)SAMPLE_AFTER * SHORT_CS_TICKS &&
            atomic_load_explicit(&e->holds, memory_order_relaxed) == SAMPLE_AFTER) {
            e->sample_mean =
                sample_interval(atomic_load_explicit(&e->hold_ticks, memory_order_relaxed));
            e->countdown = draw_interval(&prof_thread, e->sample_mean);
            e->sampled = 1;
        }
    }
    if (PROF_UNLIKELY(prof_nkinds > 1))
        atomic_fetch_add_explicit(&r->hold_ticks_by_kind[h->kind], hold, memory_order_relaxed);
    if (PROF_UNLIKELY(atomic_load_explicit(&prof_hw_state, memory_order_relaxed) == 1)) {
        atomic_fetch_add_explicit(&r->misses, misses_now - h->misses_at_acquire,
                                  memory_order_relaxed);
        if (ends) atomic_fetch_add_explicit(&r->misses_cs, 1, memory_order_relaxed);
    }
}

static inline struct held *find_held(pthread_mutex_t *m) {
    struct thread_state *t = &prof_thread;
    for (int i = t->nheld - 1; i >= 0; i--)
        if (t->held[i].mutex == m) return &t->held[i];
    return NULL;
}

static inline int is_acquired(int rc) {
    return PROF_LIKELY(rc == 0) || rc == EOWNERDEAD;
}

/* ---- the interposed functions ---- */

/* Whether m looks taken right now. glibc: one relaxed load of the lock word (nonzero while
 * any kind of mutex is held), which costs nothing next to the lock's own atomic instruction,
 * where a trylock first would add ~3 ns per acquisition (glibc 2.36, measured in
 * docs/profiler.md). An acquisition whose competitor arrives between this load and the lock
 * instruction is counted as uncontended. Elsewhere: a trylock first. */
#if defined(__GLIBC__)
#define LOOKS_TAKEN(m) (__atomic_load_n(&(m)->__data.__lock, __ATOMIC_RELAXED) != 0)
/* ... and is a normal mutex (PTHREAD_MUTEX_NORMAL/DEFAULT: kind 0, no robust, PI, PP, shared or
 * elision flag), whose pthread_mutex_lock always returns 0. */
/* glibc's PTHREAD_MUTEX_KIND_MASK_NP (internal): the type bits of __kind. */
#define GLIBC_MUTEX_KIND_MASK 3
#define LOOKS_PLAIN_AND_FREE(m)                                                                    \
    (!LOOKS_TAKEN(m) && __atomic_load_n(&(m)->__data.__kind, __ATOMIC_RELAXED) == 0)
#endif

/* Locks m for the prepared slot h and counts the acquisition once the lock is held; the wait
 * of one that looked taken (or, without LOOKS_TAKEN, whose trylock failed) is timed. */
static int lock_slow(struct thread_state *t, struct held *h, pthread_mutex_t *m) {
#ifdef LOOKS_TAKEN
    int taken = LOOKS_TAKEN(m);
    /* With sampled counts the outer acquisition of a mutex this thread holds may have been
     * passed on unrecorded: glibc's owner word says it is this thread's. */
    if (PROF_UNLIKELY(taken && !h->nested && prof_count_every > 1) &&
        __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) == (int)syscall(SYS_gettid))
        h->nested = 1;
    /* taken by this very thread: a recursive mutex locked again, not contention */
    int contended = taken && !h->nested;
    uint64_t start = contended ? prof_ticks() : 0;
    int rc = prof_real.mutex_lock(m);
#else
    int rc = prof_real.mutex_trylock(m), contended = rc == EBUSY;
    uint64_t start = contended ? prof_ticks() : 0;
    if (contended) rc = prof_real.mutex_lock(m);
#endif
    if (is_acquired(rc)) acquired(t, h, contended, contended ? prof_ticks() - start : 0);
    return rc;
}

/* pthread_mutex_lock of anything but a plain acquisition, or before start-up. */
static __attribute__((noinline)) int lock_general(pthread_mutex_t *m, uint64_t pc) {
    if (!ready()) return prof_real.mutex_lock(m);
    struct thread_state *t = &prof_thread;
    struct held *h = prepare(t, m, pc, SITE_LOCK);
    if (!h) return prof_real.mutex_lock(m);
    if (PROF_UNLIKELY(prof_count_every > 1) && t->fast) { /* sampled counts: see the top */
        h->weight = t->interval ? t->interval : 1; /* the countdown ran out: this call and those */
        t->interval = draw_interval(t, prof_count_every); /* passed on since it was drawn */
        t->skip = t->interval - 1;
    }
    return lock_slow(t, h, m);
}

/* The plain case (see fill_slot) inline, the rest in lock_general. Every call is a tail call: the
 * common case saves no register and builds no frame. */
int pthread_mutex_lock(pthread_mutex_t *m) {
    struct thread_state *t = &prof_thread;
    if (t->skip) { /* sampled counts: passed on, in the next recorded call's weight */
        t->skip--;
        return prof_real.mutex_lock(m);
    }
    uint64_t pc = (uint64_t)__builtin_return_address(0);
#ifdef LOOKS_TAKEN
    if (PROF_LIKELY(t->fast)) { /* implies prof_ready: only the general path attaches a cache */
        int n = t->nheld;
        struct tc_entry *e = cache_slot(t->tc, m, pc);
        if (PROF_LIKELY(
                cache_hit(e, m, pc, atomic_load_explicit(&prof_lock_epoch, memory_order_relaxed)) &&
                e->countdown > 1 && n < PROF_HELD_MAX && LOOKS_PLAIN_AND_FREE(m))) {
            e->countdown--; /* should_time's "no" (countdown is 0 unless sampled) */
            struct held *h = &t->held[n];
            h->mutex = m;
            h->entry = e;
            h->nested = 0;
            h->timed = 0;
            h->plain = 1;
            h->weight = 1;
            prof_add(&e->acquisitions, 1, 1);
            t->nheld = n + 1;
            return prof_real.mutex_lock(m); /* cannot fail: a normal mutex */
        }
    }
#endif
    return lock_general(m, pc);
}

/* pthread_mutex_trylock (and C11's mtx_trylock) called from pc. */
static int trylock_at(pthread_mutex_t *m, uint64_t pc) {
    if (PROF_UNLIKELY(!ready())) return prof_real.mutex_trylock(m);
    int rc = prof_real.mutex_trylock(m);
    if (is_acquired(rc))
        acquired_now(m, pc, SITE_TRYLOCK, 0, 0);
    else if (rc == EBUSY) {
        struct thread_state *t = &prof_thread;
        if (PROF_UNLIKELY(!t->classified)) classify_thread(t);
        if (!t->is_server) /* a server polls its locks with trylock: not the program's doing */
            atomic_fetch_add_explicit(&prof_record(m, pc)->trylock_failures, 1,
                                      memory_order_relaxed);
    }
    return rc;
}

int pthread_mutex_trylock(pthread_mutex_t *m) {
    return trylock_at(m, (uint64_t)__builtin_return_address(0));
}

/* pthread_mutex_timedlock (and C11's mtx_timedlock) called from pc. */
static int timedlock_at(pthread_mutex_t *m, const struct timespec *abstime, uint64_t pc) {
    if (PROF_UNLIKELY(!ready())) return prof_real.mutex_timedlock(m, abstime);
    int rc = prof_real.mutex_trylock(m); /* timedlock is rare: the simple way */
    if (rc != EBUSY) {
        if (is_acquired(rc)) acquired_now(m, pc, SITE_TIMEDLOCK, 0, 0);
        return rc;
    }
    uint64_t start = prof_ticks();
    rc = prof_real.mutex_timedlock(m, abstime);
    if (is_acquired(rc))
        acquired_now(m, pc, SITE_TIMEDLOCK, 1, prof_ticks() - start);
    else if (rc == ETIMEDOUT)
        atomic_fetch_add_explicit(&prof_record(m, pc)->timeouts, 1, memory_order_relaxed);
    return rc;
}

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime) {
    return timedlock_at(m, abstime, (uint64_t)__builtin_return_address(0));
}

/* pthread_mutex_unlock of anything but the innermost lock held, acquired plain. */
static __attribute__((noinline)) int unlock_slow(struct thread_state *t, pthread_mutex_t *m) {
    int n = t->nheld;
    struct held *h = &t->held[n - 1], moved;
    if (h->mutex != m) {
        h = find_held(m);
        if (!h) return prof_real.mutex_unlock(m);
    }
#ifdef LOOKS_TAKEN
    /* Sampled counts: the release of a recursive mutex that stays held (an inner acquisition
     * passed on unrecorded) is not the end of the recorded hold. */
    if (PROF_UNLIKELY(prof_count_every > 1) && !h->nested &&
        (__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) & GLIBC_MUTEX_KIND_MASK) ==
            PTHREAD_MUTEX_RECURSIVE_NP &&
        m->__data.__count > 1)
        return prof_real.mutex_unlock(m);
#endif
    if (h != &t->held[n - 1]) { /* not the innermost lock: take it out of the middle */
        moved = *h;
        for (struct held *end = &t->held[n - 1]; h < end; h++)
            h[0] = h[1];
        h = &moved;
    }
    uint64_t now = h->timed ? prof_ticks() : 0;
    uint64_t misses = misses_if_counting(h);
    t->nheld = n - 1; /* the popped slot stays intact until this thread's next acquisition */
    int rc = prof_real.mutex_unlock(m);
    account_hold(h, now, misses, 1);
    return rc;
}

int pthread_mutex_unlock(pthread_mutex_t *m) {
    struct thread_state *t = &prof_thread;
    int n = t->nheld; /* nonzero implies prof_ready: something was counted */
    if (n == 0) {     /* no lock recorded held (with sampled counts, the common case) */
        ready();      /* resolves prof_real on a first call before the constructor */
        return prof_real.mutex_unlock(m);
    }
    struct held *h = &t->held[n - 1];
    if (PROF_UNLIKELY(h->mutex != m || !h->plain)) return unlock_slow(t, m);
    /* counted and popped before the release, like the acquisition (see fill_slot) */
    prof_add(&h->entry->holds, 1, 1);
    t->nheld = n - 1;
    return prof_real.mutex_unlock(m);
}

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr) {
    if (PROF_UNLIKELY(!ready())) return prof_real.mutex_init(m, attr);
    int rc = prof_real.mutex_init(m, attr);
    if (rc == 0) prof_lock_initialised(m, (uint64_t)__builtin_return_address(0));
    return rc;
}

int pthread_mutex_destroy(pthread_mutex_t *m) {
    if (PROF_UNLIKELY(!ready())) return prof_real.mutex_destroy(m);
    int rc = prof_real.mutex_destroy(m);
    if (rc == 0) prof_lock_destroyed(m);
    return rc;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
    if (PROF_UNLIKELY(!ready())) return prof_real.cond_wait(c, m);
    struct held *h = find_held(m);
    if (h) account_hold(h, h->timed ? prof_ticks() : 0, misses_if_counting(h), 0);
    int rc = prof_real.cond_wait(c, m);
    if (h && h->timed) { /* the stack cannot have changed: this thread was blocked */
        h->kind = prof_current_kind();
        if (atomic_load_explicit(&prof_hw_state, memory_order_relaxed) == 1)
            h->misses_at_acquire = prof_read_misses();
        h->acquired_ticks = prof_ticks();
    }
    return rc;
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime) {
    if (PROF_UNLIKELY(!ready())) return prof_real.cond_timedwait(c, m, abstime);
    struct held *h = find_held(m);
    if (h) account_hold(h, h->timed ? prof_ticks() : 0, misses_if_counting(h), 0);
    int rc = prof_real.cond_timedwait(c, m, abstime);
    if (h && h->timed) {
        h->kind = prof_current_kind();
        if (atomic_load_explicit(&prof_hw_state, memory_order_relaxed) == 1)
            h->misses_at_acquire = prof_read_misses();
        h->acquired_ticks = prof_ticks();
    }
    return rc;
}

/* ---- threads ---- */

struct start {
    void *(*fn)(void *);
    void *arg;
};

static void *thread_trampoline(void *p) {
    struct start s = *(struct start *)p;
    free(p);
    prof_thread_started();
    return s.fn(s.arg);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
    if (PROF_UNLIKELY(!ready())) return prof_real.create(thread, attr, fn, arg);
    struct start *s = malloc(sizeof *s);
    if (!s) return prof_real.create(thread, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    int rc = prof_real.create(thread, attr, thread_trampoline, s);
    if (rc != 0) free(s);
    return rc;
}

/* ---- process exit without atexit handlers ---- */

void _exit(int status) {
    if (ready()) prof_dump(DUMP_UNDERSCORE_EXIT, 0);
    if (prof_real.underscore_exit) prof_real.underscore_exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

void _Exit(int status) {
    if (ready()) prof_dump(DUMP_UNDERSCORE_EXIT, 0);
    if (prof_real.underscore_Exit) prof_real.underscore_Exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

/* ---- librcl's hooks (rcl/prof_hooks.h) ---- */

__attribute__((visibility("default"))) void rcl_prof_cs_begin(pthread_mutex_t *lock,
                                                              const void *call_site) {
    if (!ready()) return;
    struct thread_state *t = &prof_thread;
    struct lock_record *r = prof_record(lock, (uint64_t)call_site);
    if (!atomic_load_explicit(&r->has_delegated, memory_order_relaxed))
        atomic_store_explicit(&r->has_delegated, 1, memory_order_relaxed);
    t->deleg_lock = lock;
    prof_thread_recheck(t);
    t->deleg_site = (uint64_t)call_site;
    t->deleg_local_seen = 0;
    t->deleg_start_ns = prof_now_ns();
}

__attribute__((visibility("default"))) void
rcl_prof_cs_end(pthread_mutex_t *lock, const void *call_site, uint64_t server_cs_ns) {
    if (!ready()) return;
    struct thread_state *t = &prof_thread;
    if (t->deleg_lock != lock) return;
    t->deleg_lock = NULL;
    prof_thread_recheck(t);
    if (t->deleg_local_seen) /* local mode: the pthread wrappers counted this CS already */
        return;
    uint64_t elapsed = prof_now_ns() - t->deleg_start_ns;
    uint64_t wait = elapsed > server_cs_ns ? elapsed - server_cs_ns : 0;
    /* many clients finish CSs of one lock at once: these updates are not under the lock */
    struct lock_record *r = prof_record(lock, (uint64_t)call_site);
    prof_add(&r->acquisitions, 1, 0);
    prof_add(&r->delegated, 1, 0);
    prof_add(&r->deleg_hold_ns, server_cs_ns, 0);
    prof_raise_max(&r->deleg_hold_max_ns, server_cs_ns, 0);
    prof_add(&r->deleg_wait_ns, wait, 0);
    prof_raise_max(&r->deleg_wait_max_ns, wait, 0);
    prof_count_site(r, (uint64_t)call_site, SITE_DELEGATE, 1, 0);
}

/* Optional: a server thread of librcl calls this once when it starts (found with dlsym like
 * the two hooks above). Its lifetime then leaves the "% time in CS" denominator, and its own
 * locking of the locks it serves is not counted twice. */
__attribute__((visibility("default"))) void rcl_prof_server_thread(void) {
    if (ready()) prof_thread_is_server();
}

/* ---- C11 <threads.h> ----
 * glibc implements mtx_t and cnd_t on the pthread objects (nptl/mtx_lock.c: __pthread_mutex_lock
 * on the same bytes), but calls them internally, past this library: the C11 calls are
 * interposed too, counted as the pthread calls they are, at the program's call site, with
 * C11's results (thrd_success, thrd_busy, thrd_timedout, thrd_error). */

static int c11_result(int rc) {
    return rc == 0           ? thrd_success
           : rc == EBUSY     ? thrd_busy
           : rc == ETIMEDOUT ? thrd_timedout
                             : thrd_error;
}

int mtx_lock(mtx_t *m) {
    struct thread_state *t = &prof_thread;
    if (t->skip) { /* sampled counts: passed on, as pthread_mutex_lock does */
        t->skip--;
        return c11_result(prof_real.mutex_lock((pthread_mutex_t *)m));
    }
    return c11_result(lock_general((pthread_mutex_t *)m, (uint64_t)__builtin_return_address(0)));
}

int mtx_trylock(mtx_t *m) {
    return c11_result(trylock_at((pthread_mutex_t *)m, (uint64_t)__builtin_return_address(0)));
}

int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict when) {
    return c11_result(
        timedlock_at((pthread_mutex_t *)m, when, (uint64_t)__builtin_return_address(0)));
}

int mtx_unlock(mtx_t *m) {
    return c11_result(pthread_mutex_unlock((pthread_mutex_t *)m));
}

int cnd_wait(cnd_t *c, mtx_t *m) {
    return c11_result(pthread_cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m));
}

int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict when) {
    return c11_result(pthread_cond_timedwait((pthread_cond_t *)c, (pthread_mutex_t *)m, when));
}
