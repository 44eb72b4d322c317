/*
 * tcache.c - per-thread caches of lock counts, so the hot path writes only thread-private memory.
 *
 * Each thread that locks gets one struct tcache (TC_ENTRIES direct-mapped entries keyed by
 * (mutex address, call site)) from a pool reserved at start-up. Entries are written by their
 * thread only, with relaxed stores. Counts leave an entry for the shared lock record:
 *   - when the entry is taken by another (lock, site) pair: flushed with fetch_add;
 *   - when the thread exits (pthread key destructor): every entry flushed, block back to the pool;
 *   - when the dump is written: read (not modified) and added to private copies of the records,
 *     window by window, so a dump at any moment, even from a signal handler, sees every
 *     thread's counts.
 * A dump that runs while a thread flushes the same entry may count that entry's numbers twice or
 * not at all; both happen only for threads still running when the process ends.
 *
 * Bound: TC_MAX caches of 8 KiB (16 MiB reserved, touched as threads arrive). A thread that finds
 * the pool empty (more than TC_MAX threads alive at once) updates the records directly.
 */
#include "prof.h"

#include <sys/mman.h>

#define TC_MAX 2048u

static struct tcache *pool;
static _Atomic uint8_t *pool_used;
static _Atomic uint32_t pool_hwm;  /* blocks [0, hwm) may have been used */
static _Atomic uint32_t pool_hint; /* where the next attach starts looking */

static int map_pool(void) {
    pool = mmap(NULL, TC_MAX * sizeof *pool, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    pool_used = mmap(NULL, TC_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pool == MAP_FAILED || pool_used == MAP_FAILED) {
        pool = NULL;
        return -1;
    }
    atomic_store(&pool_hwm, 0);
    atomic_store(&pool_hint, 0);
    return 0;
}

int prof_tcache_init(void) {
    return map_pool();
}

/* In a forked child (one thread): the parent's caches hold the parent's counts. */
void prof_tcache_reset_after_fork(void) {
    if (pool) {
        munmap(pool, TC_MAX * sizeof *pool);
        munmap((void *)pool_used, TC_MAX);
    }
    map_pool();
}

struct tcache *prof_tcache_attach(struct thread_state *t) {
    if (!pool) {
        t->tc_refused = 1;
        return NULL;
    }
    uint32_t start = atomic_fetch_add_explicit(&pool_hint, 1, memory_order_relaxed);
    for (uint32_t k = 0; k < TC_MAX; k++) {
        uint32_t i = (start + k) % TC_MAX;
        uint8_t expected = 0;
        if (atomic_load_explicit(&pool_used[i], memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&pool_used[i], &expected, 1,
                                                    memory_order_acquire, memory_order_relaxed)) {
            uint32_t hwm = atomic_load_explicit(&pool_hwm, memory_order_relaxed);
            while (hwm <= i && !atomic_compare_exchange_weak_explicit(&pool_hwm, &hwm, i + 1,
                                                                      memory_order_release,
                                                                      memory_order_relaxed))
                ;
            t->tc = &pool[i];
            prof_thread_recheck(t);
            return t->tc;
        }
    }
    t->tc_refused = 1;
    return NULL;
}

static inline uint64_t take(_Atomic uint64_t *x) {
    uint64_t v = atomic_load_explicit(x, memory_order_relaxed);
    atomic_store_explicit(x, 0, memory_order_relaxed);
    return v;
}

/* The entry's hold ticks extrapolated to its untimed critical sections. */
static inline uint64_t hold_estimate(uint64_t ticks, uint64_t holds, uint64_t timed) {
    if (timed == 0 || timed == holds) return ticks;
    return (uint64_t)((double)ticks * (double)holds / (double)timed);
}

static void flush(struct tc_entry *e) {
    uint32_t idx = atomic_load_explicit(&e->rec, memory_order_relaxed);
    if (!idx) return;
    struct lock_record *r = &prof_records[idx];
    uint64_t acq = take(&e->acquisitions);
    uint64_t holds = take(&e->holds), timed = take(&e->holds_timed);
    uint64_t ticks = take(&e->hold_ticks);
    prof_add(&r->acquisitions, acq, 0);
    prof_add(&r->holds, holds, 0);
    prof_add(&r->holds_timed, timed, 0);
    prof_add(&r->hold_ticks, hold_estimate(ticks, holds, timed), 0);
    prof_raise_max(&r->hold_max_ticks, take(&e->hold_max_ticks), 0);
    prof_add(&r->contended, take(&e->contended), 0);
    prof_add(&r->wait_ticks, take(&e->wait_ticks), 0);
    prof_raise_max(&r->wait_max_ticks, take(&e->wait_max_ticks), 0);
    if (acq)
        prof_count_site(r, atomic_load_explicit(&e->pc, memory_order_relaxed), e->kind, acq, 0);
    atomic_store_explicit(&e->rec, 0, memory_order_relaxed);
    atomic_store_explicit(&e->mutex, 0, memory_order_relaxed);
}

/* The held locks of t whose counts go to e count into e's record from now on: e is about to be
 * flushed and keyed to another (mutex, site), or released. So a held lock's entry is always its
 * own, and unlock needs no check (interpose.c). */
static void release_from_held(struct thread_state *t, struct tc_entry *e) {
    uint32_t idx = atomic_load_explicit(&e->rec, memory_order_relaxed);
    for (int i = 0; i < t->nheld; i++) {
        struct held *h = &t->held[i];
        if (h->entry != e) continue;
        h->entry = NULL;
        h->plain = 0;
        h->rec = &prof_records[idx];
        h->pc = atomic_load_explicit(&e->pc, memory_order_relaxed);
        h->site_kind = e->kind;
    }
}

struct tc_entry *prof_tcache_replace(struct thread_state *t, struct tc_entry *e, uint64_t mutex,
                                     uint64_t pc, uint32_t rec, uint32_t epoch, int kind) {
    release_from_held(t, e);
    flush(e);
    e->kind = (uint8_t)kind;
    e->sampled = 0;
    e->countdown = 0;
    e->epoch = epoch;
    atomic_store_explicit(&e->pc, pc, memory_order_relaxed);
    atomic_store_explicit(&e->mutex, mutex, memory_order_relaxed);
    atomic_store_explicit(&e->rec, rec, memory_order_relaxed);
    return e;
}

void prof_tcache_detach(struct thread_state *t) {
    t->tc_refused = 1; /* key destructors that run after ours update the records directly */
    struct tcache *c = t->tc;
    if (!c) return;
    t->tc = NULL;
    prof_thread_recheck(t);
    for (int i = 0; i < TC_ENTRIES; i++) {
        release_from_held(t, &c->e[i]);
        flush(&c->e[i]);
    }
    atomic_store_explicit(&pool_used[c - pool], 0, memory_order_release); /* pairs: attach */
}

void prof_tcache_merge_into(struct lock_record *window, uint64_t lo, uint64_t hi) {
    if (!pool) return;
    uint32_t hwm = atomic_load_explicit(&pool_hwm, memory_order_acquire);
    for (uint32_t b = 0; b < hwm; b++) {
        if (!atomic_load_explicit(&pool_used[b], memory_order_acquire)) continue;
        for (int i = 0; i < TC_ENTRIES; i++) {
            struct tc_entry *e = &pool[b].e[i];
            uint32_t idx = atomic_load_explicit(&e->rec, memory_order_relaxed);
            if (idx < lo || idx >= hi) continue;
            struct lock_record *r = &window[idx - lo];
            uint64_t acq = atomic_load_explicit(&e->acquisitions, memory_order_relaxed);
            uint64_t holds = atomic_load_explicit(&e->holds, memory_order_relaxed);
            uint64_t timed = atomic_load_explicit(&e->holds_timed, memory_order_relaxed);
            uint64_t ticks = atomic_load_explicit(&e->hold_ticks, memory_order_relaxed);
            r->acquisitions += acq;
            r->holds += holds;
            r->holds_timed += timed;
            r->hold_ticks += hold_estimate(ticks, holds, timed);
            prof_raise_max(&r->hold_max_ticks,
                           atomic_load_explicit(&e->hold_max_ticks, memory_order_relaxed), 1);
            prof_add(&r->contended, atomic_load_explicit(&e->contended, memory_order_relaxed), 1);
            prof_add(&r->wait_ticks, atomic_load_explicit(&e->wait_ticks, memory_order_relaxed), 1);
            prof_raise_max(&r->wait_max_ticks,
                           atomic_load_explicit(&e->wait_max_ticks, memory_order_relaxed), 1);
            if (acq)
                prof_count_site(r, atomic_load_explicit(&e->pc, memory_order_relaxed), e->kind, acq,
                                1);
        }
    }
}
