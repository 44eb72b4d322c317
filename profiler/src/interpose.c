/*
 * interpose.c - the wrappers the program calls instead of libc's pthread functions, and the
 * hooks librcl calls for delegated critical sections.
 *
 * Hot path of pthread_mutex_lock: this thread's cache entry for (mutex, call site) (tcache.c;
 * the lock table is consulted only on a miss), looked up before the lock is taken; a look at
 * the mutex's lock word, and only when it is taken is the wait timed (two TSC reads around the
 * real lock); then a plain increment in the entry, a push on the thread's stack of held locks
 * and, unless this entry's critical sections are short and only a sample is timed, one TSC
 * read. pthread_mutex_unlock pops the lock, reads the TSC (if timed), releases the lock, and
 * only then adds the hold time to the entry. No locked instruction and no write to shared
 * memory on the uncontended path.
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
#include <unistd.h>

#include "rcl/prof_hooks.h"

static inline int ready(void) {
    if (PROF_LIKELY(atomic_load_explicit(&prof_ready, memory_order_acquire))) return 1;
    prof_init();
    return atomic_load_explicit(&prof_ready, memory_order_acquire);
}

/* ---- counter updates ---- */

/* `excl`: no other thread writes x (it is in this thread's cache): a plain load and store, no
 * locked instruction. Shared records always get fetch_add. */
static inline void add(_Atomic uint64_t *x, uint64_t v, int excl) {
    if (PROF_LIKELY(excl))
        atomic_store_explicit(x, atomic_load_explicit(x, memory_order_relaxed) + v,
                              memory_order_relaxed);
    else
        atomic_fetch_add_explicit(x, v, memory_order_relaxed);
}

static inline void raise_max(_Atomic uint64_t *x, uint64_t v) {
    uint64_t old = atomic_load_explicit(x, memory_order_relaxed);
    while (PROF_UNLIKELY(v > old) && !atomic_compare_exchange_weak_explicit(
                                         x, &old, v, memory_order_relaxed, memory_order_relaxed))
        ;
}

/* ---- acquisition and release bookkeeping ---- */

/* librcl's server threads are named "rcl-server-<n>" before they take any lock; the runtime may
 * also say so through rcl_prof_server_thread(). Looked at once per thread. */
static __attribute__((noinline)) void classify_thread(struct thread_state *t) {
    char name[17] = {0};
    t->classified = 1;
    if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0 && strncmp(name, "rcl-server-", 11) == 0)
        prof_thread_is_server();
}

static inline uint32_t record_index(const struct lock_record *r) {
    return (uint32_t)(r - prof_records);
}

/* cache_entry's slow path: no cache yet, or the entry is for another (mutex, site) or epoch. */
static __attribute__((noinline)) struct tc_entry *cache_miss(struct thread_state *t,
                                                             struct tc_entry *e, pthread_mutex_t *m,
                                                             uint64_t pc, int kind, uint32_t epoch,
                                                             struct lock_record **rp) {
    if (!e) {
        struct tcache *c = t->tc_refused ? NULL : prof_tcache_attach(t);
        if (!c) {
            *rp = prof_record(m, pc);
            return NULL;
        }
        e = &c->e[((pc >> 1) ^ ((uintptr_t)m >> 3)) % TC_ENTRIES];
    }
    /* epoch was read before this lookup: a destroy in between makes the next use look again */
    struct lock_record *r = prof_record(m, pc);
    *rp = r;
    if (atomic_load_explicit(&e->mutex, memory_order_relaxed) == (uintptr_t)m &&
        atomic_load_explicit(&e->pc, memory_order_relaxed) == pc &&
        &prof_records[atomic_load_explicit(&e->rec, memory_order_relaxed)] == r) {
        e->epoch = epoch; /* another mutex was destroyed: this one is unchanged */
        return e;
    }
    return prof_tcache_replace(e, (uintptr_t)m, pc, record_index(r), epoch, kind);
}

/* This thread's cache entry for (m, pc), or NULL when the thread has no cache; *rp: m's record.
 * A hit costs no lookup in the lock table. */
static inline struct tc_entry *cache_entry(struct thread_state *t, pthread_mutex_t *m, uint64_t pc,
                                           int kind, struct lock_record **rp) {
    uint32_t epoch = atomic_load_explicit(&prof_lock_epoch, memory_order_relaxed);
    struct tcache *c = t->tc;
    if (PROF_UNLIKELY(!c)) return cache_miss(t, NULL, m, pc, kind, epoch, rp);
    /* direct-mapped on call site and mutex address */
    struct tc_entry *e = &c->e[((pc >> 1) ^ ((uintptr_t)m >> 3)) % TC_ENTRIES];
    if (PROF_LIKELY(atomic_load_explicit(&e->mutex, memory_order_relaxed) == (uintptr_t)m &&
                    atomic_load_explicit(&e->pc, memory_order_relaxed) == pc &&
                    e->epoch == epoch)) {
        *rp = &prof_records[atomic_load_explicit(&e->rec, memory_order_relaxed)];
        return e;
    }
    return cache_miss(t, e, m, pc, kind, epoch, rp);
}

/* Whether to time this critical section: always, unless the entry's are known to be short;
 * then at random intervals of mean prof_sample_period (random, so that a program's own period
 * cannot alias with ours). */
static inline int should_time(struct thread_state *t, const struct tc_entry *e) {
    if (PROF_LIKELY(!e || !e->sampled)) return 1;
    if (PROF_LIKELY(t->sample_countdown > 1)) {
        t->sample_countdown--;
        return 0;
    }
    uint32_t x = t->rng ? t->rng : (uint32_t)(uintptr_t)t | 1u;
    x ^= x << 13; /* xorshift32 */
    x ^= x >> 17;
    x ^= x << 5;
    t->rng = x;
    t->sample_countdown = 1 + x % (2 * prof_sample_period - 1);
    return 1;
}

/* What an acquisition will update, looked up before the lock is taken (so that the lookup
 * does not lengthen the critical section other threads wait for). */
struct acquisition {
    struct lock_record *r;
    struct tc_entry *e; /* NULL: this thread has no cache, update r */
    uint64_t pc;
    int kind;
    int ignored; /* a server's own locking of a lock it serves */
};

static inline __attribute__((always_inline)) void prepare(struct acquisition *a, pthread_mutex_t *m,
                                                          uint64_t pc, int kind) {
    struct thread_state *t = &prof_thread;
    if (PROF_UNLIKELY(!t->classified)) classify_thread(t);
    if (PROF_UNLIKELY(t->deleg_lock == m)) { /* librcl in local mode, inside rcl_delegate */
        pc = t->deleg_site;
        kind = SITE_DELEGATE;
        t->deleg_local_seen = 1;
    }
    a->pc = pc;
    a->kind = kind;
    a->ignored = 0;
    if (PROF_UNLIKELY(t->is_server)) {
        /* a server locking a lock whose delegated CSs it runs: the hooks report those CSs */
        a->r = prof_record(m, pc);
        a->ignored = atomic_load_explicit(&a->r->has_delegated, memory_order_relaxed) != 0;
        if (a->ignored) return;
    }
    a->e = cache_entry(t, m, pc, kind, &a->r);
}

/* The lock is held: count the acquisition and start timing its critical section. */
static inline __attribute__((always_inline)) void
acquired(pthread_mutex_t *m, const struct acquisition *a, int contended, uint64_t wait_ticks) {
    if (PROF_UNLIKELY(a->ignored)) return;
    struct thread_state *t = &prof_thread;
    struct lock_record *r = a->r;
    struct tc_entry *e = a->e;
    if (PROF_LIKELY(e != NULL)) {
        add(&e->acquisitions, 1, 1);
    } else {
        add(&r->acquisitions, 1, 0);
        prof_count_site(r, a->pc, a->kind, 1, 0);
    }
    if (PROF_UNLIKELY(contended)) { /* after a wait: the shared record is cheap enough */
        add(&r->contended, 1, 0);
        add(&r->wait_ticks, wait_ticks, 0);
        raise_max(&r->wait_max_ticks, wait_ticks);
    }

    int n = t->nheld;
    if (PROF_UNLIKELY(n == PROF_HELD_MAX)) {
        atomic_fetch_add_explicit(&prof_holds_untracked, 1, memory_order_relaxed);
        return;
    }
    struct held *h = &t->held[n];
    h->mutex = m;
    h->rec = r;
    h->entry = e;
    h->pc = a->pc;
    h->nested = 0;
    for (int i = 0; i < n; i++)
        if (t->held[i].mutex == m) h->nested = 1;
    t->nheld = n + 1;
    h->timed = !h->nested && should_time(t, e);
    if (!h->timed) return;
    h->kind = prof_current_kind();
    if (PROF_UNLIKELY(atomic_load_explicit(&prof_hw_state, memory_order_relaxed) == 1))
        h->misses_at_acquire = prof_read_misses();
    h->acquired_ticks = prof_ticks(); /* last: the bookkeeping above is not hold time */
}

/* For the rarer trylock and timedlock: look up and count once the lock is held. */
static inline void acquired_now(pthread_mutex_t *m, uint64_t pc, int kind, int contended,
                                uint64_t wait_ticks) {
    struct acquisition a;
    prepare(&a, m, pc, kind);
    acquired(m, &a, contended, wait_ticks);
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
static inline __attribute__((always_inline)) void account_hold(const struct held *h, uint64_t now,
                                                               uint64_t misses_now, int ends) {
    if (h->nested) return;
    struct lock_record *r = h->rec;
    struct tc_entry *e = h->entry;
    if (e && (atomic_load_explicit(&e->mutex, memory_order_relaxed) != (uintptr_t)h->mutex ||
              atomic_load_explicit(&e->pc, memory_order_relaxed) != h->pc ||
              &prof_records[atomic_load_explicit(&e->rec, memory_order_relaxed)] != r))
        e = NULL; /* evicted meanwhile by another (mutex, site) of this thread */
    int excl = e != NULL;
    if (ends) add(e ? &e->holds : &r->holds, 1, excl);
    if (!h->timed) return;
    uint64_t hold = now - h->acquired_ticks;
    add(e ? &e->hold_ticks : &r->hold_ticks, hold, excl);
    raise_max(&r->hold_max_ticks, hold);
    if (ends) {
        add(e ? &e->holds_timed : &r->holds_timed, 1, excl);
        if (e &&
            PROF_UNLIKELY(atomic_load_explicit(&e->holds_timed, memory_order_relaxed) ==
                          SAMPLE_AFTER) &&
            prof_sample_period > 1 &&
            atomic_load_explicit(&e->hold_ticks, memory_order_relaxed) <
                (uint64_t)SAMPLE_AFTER * SHORT_CS_TICKS &&
            atomic_load_explicit(&e->holds, memory_order_relaxed) == SAMPLE_AFTER)
            e->sampled = 1;
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
    return rc == 0 || rc == EOWNERDEAD;
}

/* ---- the interposed functions ---- */

/* Whether m looks taken right now. glibc: one relaxed load of the lock word (nonzero while
 * any kind of mutex is held), which costs nothing next to the lock's own atomic instruction,
 * where a trylock first would add ~3 ns per acquisition (glibc 2.36, measured in
 * docs/profiler.md). An acquisition whose competitor arrives between this load and the lock
 * instruction is counted as uncontended. Elsewhere: a trylock first. */
#if defined(__GLIBC__)
#define LOOKS_TAKEN(m) (__atomic_load_n(&(m)->__data.__lock, __ATOMIC_RELAXED) != 0)
#endif

int pthread_mutex_lock(pthread_mutex_t *m) {
    if (PROF_UNLIKELY(!ready())) return prof_real.mutex_lock(m);
    uint64_t pc = (uint64_t)__builtin_return_address(0);
    struct acquisition a;
    prepare(&a, m, pc, SITE_LOCK);
#ifdef LOOKS_TAKEN
    /* taken by this very thread: a recursive mutex locked again, not contention */
    if (PROF_LIKELY(!LOOKS_TAKEN(m)) || find_held(m)) {
        int rc = prof_real.mutex_lock(m);
        if (PROF_LIKELY(is_acquired(rc))) acquired(m, &a, 0, 0);
        return rc;
    }
#else
    int rc = prof_real.mutex_trylock(m);
    if (PROF_LIKELY(rc != EBUSY)) {
        if (is_acquired(rc)) acquired(m, &a, 0, 0);
        return rc;
    }
#endif
    uint64_t start = prof_ticks();
    int rc2 = prof_real.mutex_lock(m);
    if (is_acquired(rc2)) acquired(m, &a, 1, prof_ticks() - start);
    return rc2;
}

int pthread_mutex_trylock(pthread_mutex_t *m) {
    if (PROF_UNLIKELY(!ready())) return prof_real.mutex_trylock(m);
    uint64_t pc = (uint64_t)__builtin_return_address(0);
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

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime) {
    if (PROF_UNLIKELY(!ready())) return prof_real.mutex_timedlock(m, abstime);
    uint64_t pc = (uint64_t)__builtin_return_address(0);
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

int pthread_mutex_unlock(pthread_mutex_t *m) {
    if (PROF_UNLIKELY(!ready())) return prof_real.mutex_unlock(m);
    struct thread_state *t = &prof_thread;
    int n = t->nheld;
    if (n == 0) return prof_real.mutex_unlock(m);
    struct held *h = &t->held[n - 1], moved;
    if (PROF_UNLIKELY(h->mutex != m)) { /* not the innermost lock: take it out of the middle */
        h = find_held(m);
        if (!h) return prof_real.mutex_unlock(m);
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
    if (t->deleg_local_seen) /* local mode: the pthread wrappers counted this CS already */
        return;
    uint64_t elapsed = prof_now_ns() - t->deleg_start_ns;
    uint64_t wait = elapsed > server_cs_ns ? elapsed - server_cs_ns : 0;
    /* many clients finish CSs of one lock at once: these updates are not under the lock */
    struct lock_record *r = prof_record(lock, (uint64_t)call_site);
    add(&r->acquisitions, 1, 0);
    add(&r->delegated, 1, 0);
    add(&r->deleg_hold_ns, server_cs_ns, 0);
    raise_max(&r->deleg_hold_max_ns, server_cs_ns);
    add(&r->deleg_wait_ns, wait, 0);
    raise_max(&r->deleg_wait_max_ns, wait);
    prof_count_site(r, (uint64_t)call_site, SITE_DELEGATE, 1, 0);
}

/* Optional: a server thread of librcl calls this once when it starts (found with dlsym like
 * the two hooks above). Its lifetime then leaves the "% time in CS" denominator, and its own
 * locking of the locks it serves is not counted twice. */
__attribute__((visibility("default"))) void rcl_prof_server_thread(void) {
    if (ready()) prof_thread_is_server();
}
