/*
 * pass.c - one pass of a server over its mailboxes: the mailbox protocol.
 *
 * ==========================================================================================
 * THE MAILBOX PROTOCOL
 * ==========================================================================================
 *
 * Each client thread owns one mailbox (struct rcl_mailbox: one 64-byte request line; what only
 * slow paths touch is in its struct rcl_mailbox_slow, rcl_slow(mb)) per server it has delegated
 * to. A server scans the mailboxes [0, nslots) of its chunk list in order: contiguous lines.
 *
 * Fields and their single writers:
 *
 *   field    written by   when                                   ordering
 *   -------  -----------  -------------------------------------  ----------------------------
 *   lock,ctx, client      while fn == NULL                       plain; published by fn (lock
 *   ctx_size,                                                    also relaxed-atomic: see
 *   err                                                          next_wants)
 *   ctx.bytes server      the section, while fn != NULL          plain; published by fn
 *   fn       client       post: NULL -> cs function              release (pairs with the
 *                                                                server's acquire load)
 *   fn       server       answer: cs function -> NULL            release (pairs with the
 *                                                                client's acquire load)
 *   fn       client       withdraw: cs function -> NULL, only    under pool_lock (server.c)
 *                         while the server has no poller
 *   ret,err, server       while fn != NULL, before the answer    plain; published by fn
 *   status,
 *   slow.
 *   cs_ns
 *   slow.    server/      the cancellation protocol (cond.c)     its own (cond.c)
 *   wait,    client
 *   wait_
 *   cond
 *   parked   client       0 -> 1 before it futex-waits           then a seq_cst fence (D1)
 *   parked   server/      1 -> 0 to wake (server, after D2);     relaxed
 *            client       1 -> 0 when it stops waiting (client)
 *   slow.    allocator    under the server's reg_lock             release/acquire
 *   in_use,
 *   tid
 *
 * Hence: only the client moves fn away from NULL, only the server moves it back (or the client,
 * under the pool lock, while no thread of the server can start a request), so each request is
 * run exactly once and its context is never touched by the server after the answer (the client
 * may reuse its stack frame as soon as it sees fn == NULL).
 *
 * Contexts in the request line (rcl_delegate_ctx, what rcl-rewrite emits): a context of at most
 * RCL_CTX_INLINE_MAX bytes, whose section reads and writes it only through its argument, is
 * copied by the client into ctx.bytes before the post; the section runs on that copy, and the
 * client copies it back after an answer RAN (not after HAND_BACK: the caller then runs the
 * section itself on its own context; nor after CANCELLED: the section was abandoned). So the
 * server reads one line of the client per request, not also the client's stack (ffwd's
 * arguments in the request line); larger contexts go by pointer (ctx_size = 0). No atomic
 * read-modify-write is executed per request on the server: one acquire load to find the request,
 * the call, a few plain stores and one release store to answer. x86 compiles acquire loads and
 * release stores to plain moves. errno travels in err: the client's value before the section, the
 * section's after it (the server sets and reads its own errno around the call).
 *
 * Answers (status): RAN (ret and err are the section's), HAND_BACK (not run: the caller runs
 * the section itself under pthread_mutex_lock -- see try_take for when), CANCELLED (cond.c),
 * TIMEDOUT and DROPPED (timed requests, below).
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
 * Nested delegation. A critical section running on server S that delegates lock L:
 *   - L maps to S: runs inline (rcl_pass_run_nested) between pthread_mutex_lock(L) and
 *     unlock. If L's critical section is already on this server's stack, the program would
 *     self-deadlock with plain mutexes: abort with a message.
 *   - L maps to T != S: S becomes T's client and waits. Deadlock-freedom rule: the
 *     "waits on" relation between servers must stay acyclic. S publishes waiting_on = T
 *     (seq_cst) and then follows T's chain; whichever server closes a cycle sees it and the
 *     process aborts with a message naming the servers, instead of hanging.
 * Timed requests (rcl_delegate_timed: a section under pthread_mutex_timedlock/clocklock). Its
 * client may give up at its deadline, so the request must be withdrawable until a server thread
 * starts on it, and never after. One more word, slow.claim, decides it with one CAS on each
 * side; ordinary requests never touch it (no read-modify-write on their path):
 *   client  post: claim = POSTED (plain, before the release store of fn), ctx_size has
 *           RCL_CTX_TIMED, slow.clock/deadline set.
 *   server  before touching the request's mutex or context: CAS claim POSTED -> TAKEN. Lost
 *           (WITHDRAWN): it drops the request -- answers DROPPED (fn = NULL) and reads nothing
 *           else of it: the client has returned, its context and perhaps its mutex are gone.
 *           Won: try_take; BUSY (a local holder) and not waited enough: claim = POSTED again
 *           (release) and the request is retried on a later pass, as any other; BUSY and
 *           waited enough: the worker waits for the mutex with the timed lock itself, until
 *           the deadline (rcl_pass_serve_waited), and answers TIMEDOUT when it runs out;
 *           HAND_BACK: answered as any other (the client runs the timed lock itself).
 *   client  at its deadline: CAS claim POSTED -> WITHDRAWN. Won: it returns without an answer
 *           (after one last trylock of its own, as a timed lock's last attempt); fn stays set
 *           until the server drops it, and the client's next post to this server, or its exit,
 *           first waits for that (delegate.c). Lost (TAKEN): the server has it; the client waits
 *           for the answer and tries again if the claim comes back to POSTED.
 * So a request runs only after a server thread took the claim, which excludes the withdrawal:
 * it runs at most once, and never after its client returned. The server takes the claim before
 * trylock, so a mutex it touches belongs to a client still inside its call. A batch never runs
 * on into a timed request (next_wants): its mutex would be held, unclaimed, across a withdrawal
 * after which the program may destroy it.
 * What this file does not do: who polls (one servicing thread of the server at a time, the
 * poller), when it parks, how a fork pauses it and how the role moves when a critical section
 * blocks -- that is the workers' life, in server.c, which calls rcl_pass_scan once per pass.
 * A pass never calls back into server.c: it ends early and says why (enum rcl_pass_end) when
 * the worker must give the role up (its section waits for a local holder's mutex) or may have
 * lost it (the blocking detector's flag).
 * ==========================================================================================
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ the busy set */

/* Requests kept by workers that lost the polling role (server.c adds and removes them, under
 * pool_lock; the scan skips them). */

void rcl_busy_add(struct rcl_server *s, struct rcl_mailbox *mb) {
    uint32_t n = atomic_load_explicit(&s->nbusy, memory_order_relaxed);
    atomic_store_explicit(&s->busy[n], mb, memory_order_relaxed);
    atomic_store_explicit(&s->nbusy, n + 1,
                          memory_order_release); /* pairs: rcl_pass_scan acquire */
}

/* Swap-with-last: a concurrent reader that loaded the old count still finds every remaining
 * entry (the last slot keeps its value), and may see the removed one (a skip: delay only).
 * A reader that misses mb saw one of these release stores (or a count without mb), so its next
 * load of mb->fn sees the answer, which came before the removal. */
void rcl_busy_remove(struct rcl_server *s, struct rcl_mailbox *mb) {
    uint32_t n = atomic_load_explicit(&s->nbusy, memory_order_relaxed);
    for (uint32_t i = 0; i < n; i++)
        if (atomic_load_explicit(&s->busy[i], memory_order_relaxed) == mb) {
            atomic_store_explicit(&s->busy[i],
                                  atomic_load_explicit(&s->busy[n - 1], memory_order_relaxed),
                                  memory_order_release); /* pairs: rcl_busy_has */
            atomic_store_explicit(&s->nbusy, n - 1, memory_order_release);
            return;
        }
}

bool rcl_busy_has(struct rcl_server *s, struct rcl_mailbox *mb, uint32_t nbusy) {
    for (uint32_t i = 0; i < nbusy; i++)
        if (atomic_load_explicit(&s->busy[i], memory_order_acquire) == mb) return true;
    return false;
}

/* ------------------------------------------------------------------ one pass */

void rcl_pass_release(struct rcl_worker *w) {
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
        if (mutex_owner(lock) != rcl_slow(mb)->tid) return BUSY;
        rcl_stat_add(&w->s->back_owner, 1);
        return HAND_BACK;
    }
    rcl_stat_add(&w->s->back_error, 1);
    return HAND_BACK;
}

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

/* tp: run it as its caller, whose thread pointer that is (caller.c), with *err its errno. */
static int run_cs(struct rcl_worker *w, pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx,
                  uintptr_t tp, int *err) {
    if (w->nactive == RCL_MAX_NEST)
        rcl_die("server %d: critical sections nested more than %d deep", w->s->index, RCL_MAX_NEST);
    w->active[w->nactive++] = lock;
    int r = tp ? rcl_run_as_caller(fn, ctx, tp, err) : fn(ctx);
    w->nactive--;
    return r;
}

static void refuse_self_nesting(struct rcl_worker *w, pthread_mutex_t *lock) {
    for (int i = 0; i < w->nactive; i++)
        if (w->active[i] == lock)
            rcl_die("rcl_delegate: a critical section of lock %p delegates another critical "
                    "section of the same lock (this self-deadlocks with a plain mutex)",
                    (void *)lock);
}

int rcl_pass_run_nested_timed(struct rcl_worker *w, pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx,
                              clockid_t clock, const struct timespec *abstime, int *result) {
    refuse_self_nesting(w, lock);
    int err = rcl_timed_lock(lock, clock, abstime); /* (may block the worker: see below) */
    if (err) return err;
    *result = run_cs(w, lock, fn, ctx, 0, NULL);
    pthread_mutex_unlock(lock);
    return 0;
}

int rcl_pass_run_nested(struct rcl_worker *w, pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx) {
    refuse_self_nesting(w, lock);
    /* Not held by this worker (only the running batch's mutex is, and it is active): take it
     * for this one critical section. If a local holder has it, this blocks the worker; the
     * blocking detector then hands the polling role to another servicing thread (server.c). */
    int err = pthread_mutex_lock(lock);
    if (err)
        rcl_die("server %d: pthread_mutex_lock(%p) failed: %s", w->s->index, (void *)lock,
                strerror(err));
    int r = run_cs(w, lock, fn, ctx, 0, NULL);
    pthread_mutex_unlock(lock);
    return r;
}

/* An answer's fields: the client reads them only once it sees fn == NULL (answer_publish). */
static inline void answer_fill(struct rcl_mailbox *mb, enum rcl_answer status, int r,
                               uint64_t cs_ns) {
    mb->status = (uint16_t)status;
    mb->ret = r;
    if (__builtin_expect(rcl_rt.prof_end != NULL, 0)) rcl_slow(mb)->cs_ns = cs_ns; /* profiling */
}

/* The answer itself: from this store on, the client may return and reuse its context. */
static inline void answer_publish(struct rcl_server *s, struct rcl_pass *p,
                                  struct rcl_mailbox *mb) {
    atomic_store_explicit(&mb->fn, NULL, memory_order_release); /* pairs: client_wait acquire */
    p->answered[p->nanswered++] = mb;
    if (p->nanswered == RCL_ANSWERED_MAX) rcl_pass_flush(s, p);
}

static inline void answer(struct rcl_server *s, struct rcl_pass *p, struct rcl_mailbox *mb,
                          enum rcl_answer status, int r, uint64_t cs_ns) {
    answer_fill(mb, status, r, cs_ns);
    answer_publish(s, p, mb);
}

/* How far ahead of the mailbox it reads the scan asks for a mailbox's line. Measured with the
 * capacity probe (32 mailboxes kept full, 2-vCPU EPYC VM, 3 rounds each): no prefetch 72 TSC
 * cycles per request, 2 slots ahead 49-52, 4 ahead 36-42, 8 ahead 42-44. */
#define RCL_SCAN_AHEAD 4

/* Where a scan is: slot i of chunk c, which starts at slot base; lim slots of c are in use, n
 * in all; nbusy: the size of the busy set when the pass began. */
struct cursor {
    struct rcl_chunk *c;
    uint32_t base, i, lim, n, nbusy;
};

/* Whether the mailbox after the cursor's holds a request for lock: then the batch goes on and
 * the mutex is kept. One early look at the line the scan reads next anyway. Only while no
 * servicing thread is blocked (nbusy == 0): then a posted request can be answered by nobody
 * but this poller, so its client is not rewriting its lock field. */
static inline bool next_wants(const struct cursor *at, pthread_mutex_t *lock) {
    struct rcl_mailbox *next;
    struct rcl_chunk *c = at->c;
    if (at->nbusy) return false;
    if (at->i + 1 < at->lim)
        next = &c->slot[at->i + 1];
    else if (at->base + RCL_CHUNK_SLOTS < at->n &&
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
           __atomic_load_n(&next->lock, __ATOMIC_RELAXED) == lock &&
           !(__atomic_load_n(&next->ctx_size, __ATOMIC_RELAXED) & RCL_CTX_TIMED);
}

/* Run mb's request (w holds its mutex) and answer it. at: where the scan is, to see whether the
 * batch goes on; NULL: it ends with this request. */
static inline __attribute__((always_inline)) void serve(struct rcl_worker *w, struct rcl_pass *p,
                                                        struct rcl_mailbox *mb, rcl_cs_fn fn,
                                                        bool profiling, const struct cursor *at) {
    uint64_t t0 = profiling ? rcl_now_ns() : 0;
    void *ctx = mb->ctx_size & RCL_CTX_SIZE ? (void *)mb->ctx.bytes : mb->ctx.ptr;
    int r, err = mb->err;
    if (__builtin_expect(mb->ctx_size & RCL_CTX_AS_CALLER, 0)) {
        /* as its caller, in the caller's errno (caller.c) */
        r = run_cs(w, mb->lock, fn, ctx, rcl_slow(mb)->tp, &err);
        atomic_fetch_add_explicit(&w->s->as_caller, 1, memory_order_relaxed);
    } else {
        *w->errp = err; /* the section sees its caller's errno ... */
        r = run_cs(w, mb->lock, fn, ctx, 0, NULL);
        err = *w->errp; /* ... and its caller sees what it left there (answer) */
    }
    uint64_t cs_ns = profiling ? rcl_now_ns() - t0 : 0;
    /* End of the batch: release the mutex BEFORE the answer. Once rcl_delegate has returned,
     * the server no longer touches that request's mutex unless another posted request needs
     * it: the caller may destroy and free it (the end of a reference-counted object's life:
     * unlock, pthread_mutex_destroy, free). The batch goes on (and keeps the mutex) only while
     * the next mailbox holds a request for the same lock. (Not after losing the polling role:
     * the new poller may be answering that next request already, and its client rewriting the
     * lock field.) */
    bool batch_ends =
        atomic_load_explicit(&w->lost, memory_order_relaxed) || !at || !next_wants(at, mb->lock);
    /* The answer: its fields, the unlock (end of a batch) and fn, which publishes the fields,
     * always after the unlock. The fields go before the unlock while the server is lightly
     * loaded (p->light: its previous pass served at most one request), after it otherwise:
     * - Before: stores issued before the unlock's locked instruction start taking the client's
     *   line while the mutex is released; after it, that ownership transfer only starts once
     *   the unlock is done, and it adds to the round trip. Empty section, one client, 32 other
     *   mailboxes in the scan: 117-121 ns a round trip after, 91-94 ns before (ping-pong 71-87).
     * - After: the unlock then does not wait for the transfer, which overlaps the next
     *   request's work instead. Always before cost a busy server 99 TSC cycles per request
     *   instead of 84 (32 mailboxes, each of its own lock: a batch ends at every request).
     * (2-vCPU EPYC VM, interleaved rounds; docs/results.md, "Fast path, issue 11, third pass".
     * A store before the section is worse still, 137 ns: the client's polling takes the line
     * back before the answer.) */
    if (p->light) {
        mb->err = err;
        answer_fill(mb, RCL_ANSWER_RAN, r, cs_ns);
        if (batch_ends) rcl_pass_release(w);
    } else {
        if (batch_ends) rcl_pass_release(w);
        mb->err = err;
        answer_fill(mb, RCL_ANSWER_RAN, r, cs_ns);
    }
    answer_publish(w->s, p, mb);
    p->served++;
    atomic_store_explicit(&w->cur, NULL, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst); /* a later load of lost stays after the store */
}

/* One pass over the mailboxes (see the header for its results). */
enum rcl_pass_end rcl_pass_scan(struct rcl_worker *w, struct rcl_pass *p) {
    struct rcl_server *s = w->s;
    bool profiling = rcl_rt.prof_end != NULL;
    /* The busy set only grows before a worker becomes the poller, so one look per pass is
     * enough (server.c, "Why no request is lost or run twice"). */
    uint32_t nbusy = atomic_load_explicit(&s->nbusy, memory_order_acquire);
    uint32_t n = atomic_load_explicit(&s->nslots, memory_order_acquire); /* pairs: alloc */
    struct rcl_chunk *c = s->chunks;
    p->served = p->blocked = p->busy = p->back = p->nanswered = 0;
    p->wait = NULL;
    for (uint32_t base = 0; base < n; base += RCL_CHUNK_SLOTS) {
        uint32_t lim = n - base < RCL_CHUNK_SLOTS ? n - base : RCL_CHUNK_SLOTS;
        for (uint32_t i = 0; i < lim; i++) {
            struct rcl_mailbox *mb = &c->slot[i];
            /* The line RCL_SCAN_AHEAD slots on, requested now: while the scan is busy with this
             * request, the misses of the next few overlap instead of adding up (CC-Synch's
             * combiner does the same). A read: the line stays shared with its client, which
             * may be spinning on it for its answer. */
            if (i + RCL_SCAN_AHEAD < lim) __builtin_prefetch(&c->slot[i + RCL_SCAN_AHEAD], 0);
            rcl_cs_fn fn = atomic_load_explicit(&mb->fn, memory_order_acquire); /* pairs: post */
            if (!fn) continue;
            if (nbusy) {
                if (rcl_busy_has(s, mb, nbusy)) {
                    p->busy++;
                    continue;
                }
                /* Not busy: but its worker may have answered and left the set since our load
                 * of fn. Having seen the set without it (acquire), reload fn. */
                fn = atomic_load_explicit(&mb->fn, memory_order_acquire);
                if (!fn) continue;
            }
            /* A timed request: claimed before its mutex is touched ("Timed requests"). */
            bool timed = __atomic_load_n(&mb->ctx_size, __ATOMIC_RELAXED) & RCL_CTX_TIMED;
            if (timed) {
                uint32_t st = RCL_CLAIM_POSTED;
                if (!atomic_compare_exchange_strong_explicit(&rcl_slow(mb)->claim, &st,
                                                             RCL_CLAIM_TAKEN, memory_order_acq_rel,
                                                             memory_order_acquire)) {
                    rcl_pass_release(w); /* (nothing is held here: next_wants) */
                    __atomic_store_n(&c->busy_since[i], 0, __ATOMIC_RELAXED);
                    answer(s, p, mb, RCL_ANSWER_DROPPED, 0, 0);
                    p->back++;
                    continue;
                }
            }
            enum take take = try_take(w, mb);
            if (take == BUSY && !waited_enough(c, i)) {
                if (timed) /* withdrawable again */
                    atomic_store_explicit(&rcl_slow(mb)->claim, RCL_CLAIM_POSTED,
                                          memory_order_release);
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
                rcl_pass_flush(s, p);
            /* Tell the blocking detector which request runs (server.c). */
            atomic_store_explicit(&w->cur, mb, memory_order_relaxed);
            atomic_store_explicit(&w->ncs, atomic_load_explicit(&w->ncs, memory_order_relaxed) + 1,
                                  memory_order_relaxed);
            atomic_signal_fence(memory_order_seq_cst);
            if (take == BUSY) { /* waited enough: the worker waits for the mutex (server.c) */
                rcl_pass_flush(s, p);
                p->wait = mb;
                p->wait_fn = fn;
                return RCL_PASS_WAIT;
            }
            const struct cursor at = {c, base, i, lim, n, nbusy};
            serve(w, p, mb, fn, profiling, &at);
            if (__builtin_expect(atomic_load_explicit(&w->lost, memory_order_relaxed), 0))
                return RCL_PASS_LOST;
        }
        c = atomic_load_explicit(&c->next, memory_order_acquire);
    }
    return RCL_PASS_DONE;
}

void rcl_pass_serve_waited(struct rcl_worker *w, struct rcl_pass *p) {
    struct rcl_mailbox *mb = p->wait;
    atomic_fetch_add_explicit(&w->s->local_waits, 1, memory_order_relaxed);
    int err;
    if (mb->ctx_size & RCL_CTX_TIMED) { /* claimed: wait no longer than its client would */
        struct rcl_mailbox_slow *slow = rcl_slow(mb);
        err = rcl_timed_lock(mb->lock, slow->clock, &slow->deadline);
        if (err) {
            answer(w->s, p, mb, RCL_ANSWER_TIMEDOUT, err, 0);
            atomic_store_explicit(&w->cur, NULL, memory_order_relaxed);
            p->back++;
            p->wait = NULL;
            return;
        }
    } else {
        err = pthread_mutex_lock(mb->lock);
    }
    if (err) /* trylock said EBUSY for this mutex: its kind does not fail here */
        rcl_die("server %d: pthread_mutex_lock(%p) failed: %s", w->s->index, (void *)mb->lock,
                strerror(err));
    w->held = mb->lock;
    serve(w, p, mb, p->wait_fn, rcl_rt.prof_end != NULL, NULL);
    p->wait = NULL;
}

static void wake_one(struct rcl_mailbox *mb) {
    if (atomic_load_explicit(&mb->parked, memory_order_relaxed)) {
        atomic_store_explicit(&mb->parked, 0, memory_order_relaxed);
        rcl_futex_wake(&mb->parked, 1);
    }
}

/* Wake the clients answered since the last check that parked meanwhile. */
void rcl_pass_flush(struct rcl_server *s, struct rcl_pass *p) {
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

unsigned rcl_pass_posted(struct rcl_server *s) {
    return each_posted(s, NULL);
}

void rcl_pass_flush_current(struct rcl_worker *w) {
    if (w->pass && w->pass->nanswered) rcl_pass_flush(w->s, w->pass);
}

void rcl_pass_wake_waiting_clients(struct rcl_server *s) {
    atomic_thread_fence(memory_order_seq_cst); /* as D2: pairs with D1 in client_wait */
    each_posted(s, wake_one);
}

void rcl_pass_abandon(struct rcl_worker *w, struct rcl_mailbox *mb) {
    /* w lost the polling role before it waited (cond.c) and flushed its pass's wake-ups then:
     * nothing else of this pass is owed. Its request's mutex is held again (the wait returned):
     * release it before the answer, as for any request; the client takes it itself. */
    rcl_pass_release(w);
    w->nactive = 0;
    atomic_fetch_add_explicit(&w->s->cancelled, 1, memory_order_relaxed);
    atomic_store_explicit(&w->cur, NULL, memory_order_relaxed);
    mb->status = RCL_ANSWER_CANCELLED;
    atomic_store_explicit(&mb->fn, NULL, memory_order_release); /* pairs: client_wait acquire */
    atomic_thread_fence(memory_order_seq_cst);                  /* D2 */
    wake_one(mb);
    siglongjmp(w->abandon, 1);
}
