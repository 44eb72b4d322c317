/*
 * server.c - the server loop and the mailbox protocol.
 *
 * ==========================================================================================
 * THE MAILBOX PROTOCOL
 * ==========================================================================================
 *
 * Each client thread owns one mailbox (struct rcl_mailbox, one 64-byte cache line) per server
 * it has delegated to. A server scans the mailboxes [0, nslots) of its chunk list in order.
 *
 * Fields and their single writers:
 *
 *   field    written by   when                                   ordering
 *   -------  -----------  -------------------------------------  ----------------------------
 *   lock,ctx, client      while fn == NULL                       plain; published by fn (lock
 *   err                                                          also relaxed-atomic: see
 *                                                                next_wants)
 *   fn       client       post: NULL -> cs function              release (pairs with the
 *                                                                server's acquire load)
 *   fn       server       answer: cs function -> NULL            release (pairs with the
 *                                                                client's acquire load)
 *   fn       client       withdraw: cs function -> NULL, only    under pool_lock (pool.c)
 *                         while the server has no poller
 *   ret,err, server       while fn != NULL, before the answer    plain; published by fn
 *   status,
 *   cs_ns
 *   wait,    server/      the cancellation protocol (cond.c)     its own (cond.c)
 *   wait_    client
 *   cond
 *   parked   client       0 -> 1 before it futex-waits           then a seq_cst fence (D1)
 *   parked   server/      1 -> 0 to wake (server, after D2);     relaxed
 *            client       1 -> 0 when it stops waiting (client)
 *   in_use,  allocator    under the server's reg_lock             release/acquire
 *   tid
 *
 * Hence: only the client moves fn away from NULL, only the server moves it back (or the client,
 * under the pool lock, while no thread of the server can start a request), so each request is
 * run exactly once and its context is never touched by the server after the answer (the client
 * may reuse its stack frame as soon as it sees fn == NULL). No atomic read-modify-write is
 * executed per request on the server: one acquire load to find the request, the call, a few
 * plain stores and one release store to answer. x86 compiles acquire loads and release stores
 * to plain moves. errno travels in err: the client's value before the section, the section's
 * after it (the server sets and reads its own errno around the call).
 *
 * Answers (status): RAN (ret and err are the section's), HAND_BACK (not run: the caller runs
 * the section itself under pthread_mutex_lock -- see try_take for when), CANCELLED (cond.c).
 *
 * Mutual exclusion with local critical sections (mixed mode). The server runs a request only
 * while it holds the request's pthread mutex. It takes the mutex with pthread_mutex_trylock
 * and keeps it while consecutive requests of the scan are for the same lock (a "batch": they
 * cost no atomic operation); it releases it BEFORE answering the batch's last request (when the
 * next mailbox holds no request for that lock). Rule: once rcl_delegate has returned, the
 * server no longer touches that request's mutex unless another posted request needs it (the
 * client may destroy and free it). It never holds a mutex that no running critical section
 * needs, because a critical section may itself lock any other mutex (a nested pair, or a callee
 * in a file that was not rewritten) and would otherwise deadlock the server on itself. If
 * trylock fails, a thread holds the mutex locally: the request stays posted and is retried on a
 * later pass; other requests go on. The server never blocks on a mutex in its top-level loop,
 * so a local holder that itself delegates to this server cannot deadlock with it. A local
 * critical section waiting in pthread_mutex_lock gets the mutex at the latest at the end of the
 * current batch.
 *
 * Waking a parked client (Dekker pair, no lost wake-up):
 *   client: nparked++ (server-wide, atomic RMW); parked = 1; fence(seq_cst) [D1];
 *           if fn == NULL: done, else futex_wait(parked, 1); finally parked = 0, nparked--
 *   server: fn = NULL (answer); ... end of pass: fence(seq_cst) [D2]; if nparked != 0: for
 *           each mailbox answered in the pass, if parked: parked = 0, futex_wake(parked)
 * With both fences, either the client sees fn == NULL and does not sleep, or the server sees
 * nparked != 0 and parked == 1 and wakes it (futex_wait returns at once if parked was
 * already reset to 0). The fence is paid once per pass that answered something, not once per
 * request, and while no client is parked the server reads no mailbox again.
 * Promptness: a client answered early in a pass must not sleep until the pass ends, because a
 * later critical section of the pass may block on something that client does once awake
 * (memcached's LRU maintainer locks a worker's bump-buffer mutex). So before running each
 * further critical section, the server also flushes the wake-ups owed so far when a relaxed
 * load of nparked is non-zero. That load is a hint, not a Dekker read: in the nanoseconds in
 * which a client is parking it may miss it, which is why a parked client also re-checks its
 * mailbox on a futex timeout (1 ms doubling to 128 ms): a missed hint costs latency, never
 * liveness.
 *
 * Parking an idle server (second Dekker pair):
 *   server: sleeping = 1; fence(seq_cst); re-scan: any request not seen before? then
 *           sleeping = 0 and serve; else futex_wait(sleeping, 1)
 *   client: fn = cs (release); fence(seq_cst); if sleeping: exchange(sleeping, 0) and
 *           futex_wake(sleeping)
 * A server whose only pending requests are blocked by local holders parks with a timeout
 * (50 us doubling to 1 ms) so that it retries their mutexes without burning its core. Requests
 * run by servicing threads that lost the polling role (pool.c) need no retry: their worker
 * kicks the server when it answers, so they never shorten the park.
 *
 * Fork (delegate.c's pthread_atfork handlers): the forking thread bumps fork_gen, sets fork_hold
 * and kicks; the poller sees it at the top of its loop -- between two passes, holding no mutex
 * of the program -- acknowledges the generation in fork_ack and waits until the parent handler
 * clears fork_hold. A server without a poller is held by its pool lock instead (no worker can
 * take the role without it).
 *
 * Nested delegation. A critical section running on server S that delegates lock L:
 *   - L maps to S: runs inline (rcl_server_run_nested) between pthread_mutex_lock(L) and
 *     unlock. If L's critical section is already on this server's stack, the program would
 *     self-deadlock with plain mutexes: abort with a message.
 *   - L maps to T != S: S becomes T's client and waits. Deadlock-freedom rule: the
 *     "waits on" relation between servers must stay acyclic. S publishes waiting_on = T
 *     (seq_cst) and then follows T's chain; whichever server closes a cycle sees it and the
 *     process aborts with a message naming the servers, instead of hanging.
 * ==========================================================================================
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RCL_ANSWERED_MAX 64

struct pass {
    unsigned served;
    unsigned blocked;   /* requests seen but skipped because a local holder had the mutex */
    unsigned busy;      /* requests seen but skipped because a worker that lost the polling role
                           still runs them (it kicks the server when it answers) */
    unsigned back;      /* requests handed back to their callers */
    unsigned nanswered; /* answered since the last wake-up check */
    struct rcl_mailbox *answered[RCL_ANSWERED_MAX];
};

static void release_held(struct rcl_worker *w) {
    if (w->held) pthread_mutex_unlock(w->held);
    w->held = NULL;
}

/* glibc keeps the owner's thread id and the mutex kind in the public pthread_mutex_t layout.
 * Elsewhere a recursive mutex held by the caller is not recognised (the request waits for it
 * like for any local holder) and robust mutexes are served like the others. */
#ifdef __GLIBC__
#define RCL_MUTEX_ROBUST 16 /* glibc's PTHREAD_MUTEX_ROBUST_NORMAL_NP bit of __kind */
static inline int mutex_owner(const pthread_mutex_t *m) {
    return __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED);
}
static inline bool mutex_robust(const pthread_mutex_t *m) {
    return __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) & RCL_MUTEX_ROBUST;
}
#else
static inline int mutex_owner(const pthread_mutex_t *m) {
    (void)m;
    return 0;
}
static inline bool mutex_robust(const pthread_mutex_t *m) {
    (void)m;
    return false;
}
#endif

enum take { TAKEN, BUSY, HAND_BACK };

/* Take mb's mutex for the batch of requests that follows in this pass; called only between
 * critical sections. The previous batch's mutex is already released (right after its last
 * request, before that request's answer).
 *   BUSY: a local holder has it (or a servicing thread whose critical section blocked); the
 *         request stays posted and is retried.
 *   HAND_BACK: the server must not run this request; its caller runs it itself under the mutex,
 *         exactly as the original program did (mixed mode makes that safe):
 *         - the caller itself holds the mutex (a recursive mutex taken again, or any kind: the
 *           caller's own pthread_mutex_lock then does what it did before conversion -- count
 *           one more level, return EDEADLK, or deadlock as the original would);
 *         - a robust mutex: only the caller's own pthread_mutex_lock can report EOWNERDEAD to it;
 *         - trylock failed otherwise (EAGAIN: recursion limit, EINVAL...): the caller's lock
 *           call fails the same way. */
static enum take try_take(struct rcl_worker *w, struct rcl_mailbox *mb) {
    pthread_mutex_t *lock = mb->lock;
    if (w->held == lock) return TAKEN;
    if (mutex_robust(lock)) {
        rcl_stat_add(&w->s->back_robust, 1);
        return HAND_BACK;
    }
    int err = pthread_mutex_trylock(lock);
    if (err == 0) {
        w->held = lock;
        return TAKEN;
    }
    if (err == EBUSY) {
        if (mutex_owner(lock) != mb->tid) return BUSY;
        rcl_stat_add(&w->s->back_owner, 1);
        return HAND_BACK;
    }
    rcl_stat_add(&w->s->back_error, 1);
    return HAND_BACK;
}

static void flush_wakes(struct rcl_server *s, struct pass *p);

/* Bounded waiting against local holders: a thread that locks and unlocks a mutex back to back
 * keeps winning against trylock. Once a request has found its mutex held for RCL_LOCAL_WAIT_US
 * (the first failure starts the clock), the poller stops polling for it: */
static bool waited_enough(struct rcl_chunk *c, uint32_t i) {
    /* relaxed atomics: successive pollers share these hints (the role moves between threads) */
    uint64_t now = rcl_now_ns(), since = __atomic_load_n(&c->busy_since[i], __ATOMIC_RELAXED);
    if (!since) {
        __atomic_store_n(&c->busy_since[i], now, __ATOMIC_RELAXED);
        return false;
    }
    return now - since >= rcl_rt.cfg.local_wait_ns;
}

/* ... it hands the polling role to a spare servicing thread (as a condition wait does) and
 * waits for the mutex in pthread_mutex_lock, so that from then on the request competes for it
 * as a thread of the original program would (queued in the mutex's futex, woken at an unlock).
 * It then runs the request as a worker that lost the role. */
static void wait_for_mutex(struct rcl_worker *w, struct pass *p, struct rcl_mailbox *mb) {
    flush_wakes(w->s, p);
    rcl_pool_before_block(w);
    atomic_fetch_add_explicit(&w->s->local_waits, 1, memory_order_relaxed);
    int err = pthread_mutex_lock(mb->lock);
    if (err) /* trylock said EBUSY for this mutex: its kind does not fail here */
        rcl_die("server %d: pthread_mutex_lock(%p) failed: %s", w->s->index, (void *)mb->lock,
                strerror(err));
    w->held = mb->lock;
}

static int run_cs(struct rcl_worker *w, pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx) {
    if (w->nactive == RCL_MAX_NEST)
        rcl_die("server %d: critical sections nested more than %d deep", w->s->index, RCL_MAX_NEST);
    w->active[w->nactive++] = lock;
    int r = fn(ctx);
    w->nactive--;
    return r;
}

int rcl_server_run_nested(struct rcl_worker *w, pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx) {
    for (int i = 0; i < w->nactive; i++)
        if (w->active[i] == lock)
            rcl_die("rcl_delegate: a critical section of lock %p delegates another critical "
                    "section of the same lock (this self-deadlocks with a plain mutex)",
                    (void *)lock);
    /* Not held by this worker (only the running batch's mutex is, and it is active): take it
     * for this one critical section. If a local holder has it, this blocks the worker; the
     * blocking detector then hands the polling role to another servicing thread (pool.c). */
    int err = pthread_mutex_lock(lock);
    if (err)
        rcl_die("server %d: pthread_mutex_lock(%p) failed: %s", w->s->index, (void *)lock,
                strerror(err));
    int r = run_cs(w, lock, fn, ctx);
    pthread_mutex_unlock(lock);
    return r;
}

static inline void answer(struct rcl_server *s, struct pass *p, struct rcl_mailbox *mb,
                          enum rcl_answer status, int r, uint64_t cs_ns) {
    mb->status = (uint16_t)status;
    mb->ret = r;
    mb->cs_ns = cs_ns;
    atomic_store_explicit(&mb->fn, NULL, memory_order_release); /* pairs: client_wait acquire */
    p->answered[p->nanswered++] = mb;
    if (p->nanswered == RCL_ANSWERED_MAX) flush_wakes(s, p);
}

/* Whether the mailbox after slot i (of chunk c, which starts at slot base) holds a request for
 * lock: then the batch goes on and the mutex is kept. One early look at the line the scan reads
 * next anyway. Only while no servicing thread is blocked (nbusy == 0): then a posted request
 * can be answered by nobody but this poller, so its client is not rewriting its lock field. */
static inline bool next_wants(struct rcl_chunk *c, uint32_t base, uint32_t i, uint32_t lim,
                              uint32_t n, uint32_t nbusy, pthread_mutex_t *lock) {
    struct rcl_mailbox *next;
    if (nbusy) return false;
    if (i + 1 < lim)
        next = &c->slot[i + 1];
    else if (base + RCL_CHUNK_SLOTS < n &&
             (c = atomic_load_explicit(&c->next, memory_order_acquire)))
        next = &c->slot[0];
    else
        return false;
    /* Relaxed atomic: if the blocking detector takes the polling role away during the current
     * section, the new poller may answer that next request and its client post another one
     * (rewriting lock) meanwhile. A stale answer is harmless: a false "no" ends the batch; a
     * false "yes" keeps the mutex while a posted request of the same lock exists, until this
     * worker sees it lost the role and releases it. */
    return atomic_load_explicit(&next->fn, memory_order_acquire) &&
           __atomic_load_n(&next->lock, __ATOMIC_RELAXED) == lock;
}

/* One pass over the mailboxes. Returns false when w lost the polling role during one of its
 * critical sections (pool.c): it then runs no further request. */
static bool scan(struct rcl_worker *w, struct pass *p) {
    struct rcl_server *s = w->s;
    bool profiling = rcl_rt.prof_end != NULL;
    /* The busy set only grows before a worker becomes the poller, so one look per pass is
     * enough (pool.c, "Why no request is lost or run twice"). */
    uint32_t nbusy = atomic_load_explicit(&s->nbusy, memory_order_acquire);
    uint32_t n = atomic_load_explicit(&s->nslots, memory_order_acquire); /* pairs: alloc */
    struct rcl_chunk *c = s->chunks;
    for (uint32_t base = 0; base < n; base += RCL_CHUNK_SLOTS) {
        uint32_t lim = n - base < RCL_CHUNK_SLOTS ? n - base : RCL_CHUNK_SLOTS;
        for (uint32_t i = 0; i < lim; i++) {
            struct rcl_mailbox *mb = &c->slot[i];
            rcl_cs_fn fn = atomic_load_explicit(&mb->fn, memory_order_acquire); /* pairs: post */
            if (!fn) continue;
            if (nbusy) {
                if (rcl_pool_is_busy(s, mb, nbusy)) {
                    p->busy++;
                    continue;
                }
                /* Not busy: but its worker may have answered and left the set since our load
                 * of fn. Having seen the set without it (acquire), reload fn. */
                fn = atomic_load_explicit(&mb->fn, memory_order_acquire);
                if (!fn) continue;
            }
            enum take take = try_take(w, mb);
            if (take == BUSY && !waited_enough(c, i)) {
                p->blocked++;
                continue;
            }
            if (__atomic_load_n(&c->busy_since[i], __ATOMIC_RELAXED))
                __atomic_store_n(&c->busy_since[i], 0, __ATOMIC_RELAXED);
            if (take == HAND_BACK) {
                answer(s, p, mb, RCL_ANSWER_HAND_BACK, 0, 0);
                p->back++;
                continue;
            }
            /* Clients answered earlier in this pass must not wait for its end: the next
             * critical section may block, even on something a parked client would do once
             * awake. A relaxed look at nparked keeps this free while nobody parks. */
            if (p->nanswered && atomic_load_explicit(&s->nparked, memory_order_relaxed))
                flush_wakes(s, p);
            /* Tell the blocking detector which request runs (pool.c). */
            atomic_store_explicit(&w->cur, mb, memory_order_relaxed);
            atomic_store_explicit(&w->ncs, atomic_load_explicit(&w->ncs, memory_order_relaxed) + 1,
                                  memory_order_relaxed);
            atomic_signal_fence(memory_order_seq_cst);
            if (take == BUSY) wait_for_mutex(w, p, mb); /* w is LOST from here on */
            uint64_t t0 = profiling ? rcl_now_ns() : 0;
            *w->errp = mb->err; /* the section sees its caller's errno ... */
            int r = run_cs(w, mb->lock, fn, mb->ctx);
            int err = *w->errp; /* ... and its caller sees what it left there (answer) */
            uint64_t cs_ns = profiling ? rcl_now_ns() - t0 : 0;
            /* End of the batch: release the mutex BEFORE the answer. Once rcl_delegate has
             * returned, the server no longer touches that request's mutex unless another posted
             * request needs it: the caller may destroy and free it (the end of a
             * reference-counted object's life: unlock, pthread_mutex_destroy, free). The batch
             * goes on (and keeps the mutex) only while the next mailbox holds a request for the
             * same lock. (Not after losing the polling role: the new poller may be answering
             * that next request already, and its client rewriting the lock field.) */
            bool batch_ends = atomic_load_explicit(&w->lost, memory_order_relaxed) ||
                              !next_wants(c, base, i, lim, n, nbusy, mb->lock);
            /* Nothing is written to the client's line before the unlock: the unlock is a
             * locked instruction, which would wait for such a store's ownership transfer. */
            if (batch_ends) release_held(w);
            mb->err = err;
            answer(s, p, mb, RCL_ANSWER_RAN, r, cs_ns);
            p->served++;
            atomic_store_explicit(&w->cur, NULL, memory_order_relaxed);
            atomic_signal_fence(memory_order_seq_cst); /* the load below stays after the store */
            if (__builtin_expect(atomic_load_explicit(&w->lost, memory_order_relaxed), 0) &&
                !rcl_pool_still_poller(w))
                return false;
        }
        c = atomic_load_explicit(&c->next, memory_order_acquire);
    }
    return true;
}

static void wake_one(struct rcl_mailbox *mb) {
    if (atomic_load_explicit(&mb->parked, memory_order_relaxed)) {
        atomic_store_explicit(&mb->parked, 0, memory_order_relaxed);
        rcl_futex_wake(&mb->parked, 1);
    }
}

/* Wake the clients answered since the last check that parked meanwhile. */
static void flush_wakes(struct rcl_server *s, struct pass *p) {
    atomic_thread_fence(memory_order_seq_cst); /* D2: pairs with D1 in client_wait */
    if (atomic_load_explicit(&s->nparked, memory_order_relaxed)) /* else nobody to wake */
        for (unsigned i = 0; i < p->nanswered; i++)
            wake_one(p->answered[i]);
    p->nanswered = 0;
}

/* Visit (when visit is not NULL) every mailbox of s that holds a posted request; returns how
 * many there are. */
static unsigned each_posted(struct rcl_server *s, void (*visit)(struct rcl_mailbox *)) {
    unsigned posted = 0;
    uint32_t n = atomic_load_explicit(&s->nslots, memory_order_acquire);
    struct rcl_chunk *c = s->chunks;
    for (uint32_t base = 0; base < n; base += RCL_CHUNK_SLOTS) {
        uint32_t lim = n - base < RCL_CHUNK_SLOTS ? n - base : RCL_CHUNK_SLOTS;
        for (uint32_t i = 0; i < lim; i++)
            if (atomic_load_explicit(&c->slot[i].fn, memory_order_relaxed)) {
                posted++;
                if (visit) visit(&c->slot[i]);
            }
        c = atomic_load_explicit(&c->next, memory_order_acquire);
    }
    return posted;
}

/* Park until a client kicks us (or, with requests blocked by local holders, until the
 * timeout). skipped: the requests the last pass saw and could not run. */
static void park(struct rcl_server *s, unsigned skipped, uint64_t timeout_ns) {
    atomic_store_explicit(&s->sleeping, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst); /* pairs with the fence in rcl_server_kick */
    if (each_posted(s, NULL) > skipped ||      /* a request arrived after our last pass */
        atomic_load_explicit(&s->fork_hold, memory_order_relaxed)) {
        atomic_store_explicit(&s->sleeping, 0, memory_order_seq_cst);
        rcl_pool_poller_unparked(s);
        return;
    }
    rcl_stat_add(&s->parks, 1);
    rcl_futex_wait(&s->sleeping, 1, timeout_ns);
    atomic_store_explicit(&s->sleeping, 0, memory_order_seq_cst);
    rcl_pool_poller_unparked(s);
}

void rcl_server_kick(struct rcl_server *s) {
    atomic_thread_fence(memory_order_seq_cst); /* pairs with the fence in park */
    if (atomic_load_explicit(&s->sleeping, memory_order_relaxed) &&
        atomic_exchange_explicit(&s->sleeping, 0, memory_order_relaxed))
        rcl_futex_wake(&s->sleeping, 1);
}

/* ------------------------------------------------------------------ fork */

/* The poller, between two passes (it holds no mutex of the program), waits while a fork is
 * prepared. It acknowledges the fork's generation, not a flag: a poller just leaving the pause
 * of the previous fork must not pass for paused (it would scan, and could hold a mutex, during
 * the next fork). It acknowledges again after every wake-up, so a new prepare that finds it
 * still in this loop gets its own acknowledgement. */
static void fork_pause(struct rcl_server *s) {
    for (;;) {
        uint32_t gen = atomic_load_explicit(&s->fork_gen, memory_order_acquire);
        atomic_store_explicit(&s->fork_ack, gen, memory_order_seq_cst);
        rcl_futex_wake(&s->fork_ack, 1);
        if (!atomic_load_explicit(&s->fork_hold, memory_order_acquire)) return;
        rcl_futex_wait(&s->fork_hold, 1, 0);
    }
}

void rcl_server_fork_prepare(struct rcl_server *s) {
    /* forks are serialised by rt_init_lock (delegate.c): one writer of fork_gen */
    uint32_t gen = atomic_load_explicit(&s->fork_gen, memory_order_relaxed) + 1;
    atomic_store_explicit(&s->fork_gen, gen, memory_order_relaxed);
    atomic_store_explicit(&s->fork_hold, 1, memory_order_seq_cst); /* publishes fork_gen */
    for (;;) {
        rcl_server_kick(s);               /* a parked poller wakes, sees fork_hold, pauses */
        rcl_futex_wake(&s->fork_hold, 1); /* one still in fork_pause's wait acknowledges */
        uint32_t ack = atomic_load_explicit(&s->fork_ack, memory_order_seq_cst);
        if (ack == gen) return;
        /* No poller (the pool is exhausted): keep it that way across the fork. */
        rcl_spin_lock(&s->pool_lock);
        if (!atomic_load_explicit(&s->poller, memory_order_relaxed)) {
            s->fork_locked = true; /* pool_lock kept until rcl_server_fork_parent */
            return;
        }
        rcl_spin_unlock(&s->pool_lock);
        rcl_futex_wait(&s->fork_ack, ack, 1000000);
    }
}

void rcl_server_fork_parent(struct rcl_server *s) {
    if (s->fork_locked) rcl_spin_unlock(&s->pool_lock); /* no poller: see fork_prepare */
    s->fork_locked = false;
    atomic_store_explicit(&s->fork_hold, 0, memory_order_release);
    rcl_futex_wake(&s->fork_hold, 1);
}

/* ------------------------------------------------------------------ the polling loop */

/* Poll while w holds the polling role. Returns when w lost it inside a critical section; the
 * request it was running has been answered by then (its client woken). */
static void poll_loop(struct rcl_worker *w) {
    struct rcl_server *s = w->s;
    const uint64_t spin_ns = rcl_rt.cfg.server_spin_ns;
    uint64_t idle_since = 0, blocked_timeout = 50000;
    unsigned idle_passes = 0;
    for (;;) {
        if (__builtin_expect(atomic_load_explicit(&s->fork_hold, memory_order_acquire), 0))
            fork_pause(s);
        struct pass p;
        p.served = p.blocked = p.busy = p.back = p.nanswered = 0;
        w->pass = &p;
        bool still = scan(w, &p);
        release_held(w);
        if (p.served || p.back) {
            rcl_stat_add(&s->served, p.served); /* the new poller may add too: a lost count at
                                               worst, this is a statistic */
            if (p.nanswered) flush_wakes(s, &p);
            w->pass = NULL;
            if (!still) return;
            idle_since = 0;
            blocked_timeout = 50000;
            continue;
        }
        w->pass = NULL;
        /* Idle pass: one pause, and a clock read only every 64 passes, so that a request
         * posted now is seen within about one scan. While servicing threads of this server
         * are inside blocked critical sections, one of them may have been woken (a signal):
         * it runs on this core and must not wait for the spin to run out, so yield -- every
         * 16th idle pass, not every one: a yield is a system call, and the other clients'
         * requests must keep being seen within about one scan. */
        if (atomic_load_explicit(&s->nbusy, memory_order_relaxed) && idle_passes % 16 == 0)
            sched_yield();
        else
            rcl_cpu_relax();
        rcl_stat_add(&s->idle_passes, 1);
        if (++idle_passes % 64) continue;
        uint64_t now = rcl_now_ns();
        if (!idle_since) idle_since = now;
        if (now - idle_since < spin_ns) continue;
        /* Requests of blocked servicing threads need no retry: their worker answers them and
         * kicks us (rcl_pool_return). Only local holders' mutexes are retried with a timeout, so
         * that an idle process whose sections wait on conditions costs nothing. */
        if (p.blocked) {
            park(s, p.blocked + p.busy, blocked_timeout);
            if (blocked_timeout < 1000000) blocked_timeout *= 2;
        } else {
            park(s, p.busy, 0);
            idle_since = 0;
        }
    }
}

void rcl_server_flush_pass(struct rcl_worker *w) {
    if (w->pass && w->pass->nanswered) flush_wakes(w->s, w->pass);
}

void rcl_server_wake_waiting_clients(struct rcl_server *s) {
    atomic_thread_fence(memory_order_seq_cst); /* as D2: pairs with D1 in client_wait */
    each_posted(s, wake_one);
}

void rcl_server_abandon(struct rcl_worker *w, struct rcl_mailbox *mb) {
    /* w lost the polling role before it waited (cond.c) and flushed its pass's wake-ups then:
     * nothing else of this pass is owed. Its request's mutex is held again (the wait returned):
     * release it before the answer, as for any request; the client takes it itself. */
    release_held(w);
    w->nactive = 0;
    atomic_fetch_add_explicit(&w->s->cancelled, 1, memory_order_relaxed);
    atomic_store_explicit(&w->cur, NULL, memory_order_relaxed);
    mb->status = RCL_ANSWER_CANCELLED;
    atomic_store_explicit(&mb->fn, NULL, memory_order_release); /* pairs: client_wait acquire */
    atomic_thread_fence(memory_order_seq_cst);                  /* D2 */
    wake_one(mb);
    siglongjmp(w->abandon, 1);
}

void *rcl_worker_main(void *arg) {
    struct rcl_worker *w = arg;
    struct rcl_server *s = w->s;
    rcl_runtime_thread_start();
    char name[32];
    if (w->id == 0)
        snprintf(name, sizeof name, "rcl-server-%d", s->index);
    else
        snprintf(name, sizeof name, "rcl-server-%d.%d", s->index, w->id);
    name[15] = '\0';
    pthread_setname_np(pthread_self(), name);
    atomic_store_explicit(&w->tid, (int)syscall(SYS_gettid), memory_order_relaxed);
    if (s->cpu >= 0 && rcl_placement_bind_self(&rcl_rt.pl, s->cpu) != 0 && w->id == 0)
        rcl_warn("server %d: could not pin to CPU %d; running unpinned", s->index, s->cpu);
    rcl_self_server = s;
    rcl_self_worker = w;
    w->errp = &errno;
    if (rcl_rt.prof_server_thread) rcl_rt.prof_server_thread();
    /* A request abandoned by rcl_server_abandon lands here, its worker LOST (cond.c): it
     * returns to the pool as after any request it finished without the polling role. */
    bool poll = sigsetjmp(w->abandon, 0) && rcl_pool_return(w);
    for (;;) {
        if (!poll && !rcl_pool_wait_spare(w)) return NULL;
        do
            poll_loop(w);
        while (rcl_pool_return(w));
        poll = false;
    }
}

void rcl_server_init(struct rcl_server *s, int index, int cpu) {
    memset(s, 0, sizeof *s);
    s->index = index;
    s->cpu = cpu;
    pthread_mutex_init(&s->reg_lock, NULL);
    if (posix_memalign((void **)&s->chunks, RCL_CACHE_LINE, sizeof *s->chunks) != 0)
        rcl_die("out of memory allocating server %d's mailboxes", index);
    memset(s->chunks, 0, sizeof *s->chunks);
}

void rcl_server_start(struct rcl_server *s) {
    rcl_pool_start(s);
}
