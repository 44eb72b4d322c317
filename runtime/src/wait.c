/*
 * wait.c - a client waiting for its answer.
 *
 * After posting its request (delegate.c), a client spins for about the cost of a futex wake-up
 * (RCL_SPIN_NS), knowing its core: alone on it, it spins with the pause hint, so that the round
 * trip stays about one cache-line ping-pong; when other threads want its core (clients outnumber
 * the cores they may use) it yields it at every poll. Then it parks on its mailbox's futex: the
 * Dekker pair with the server's wake-ups is in pass.c ("Waking a parked client"). A request
 * whose server has no poller left (every servicing thread blocked, the pool at RCL_POOL_MAX) is
 * taken back (server.c's rcl_pool_withdraw) and its caller runs it. A parked client whose
 * section waits on a condition takes the client's part in the cancellation protocol of cond.c
 * (cancellable while the section is inside its wait). A timed request's client waits until its
 * deadline at the latest (rcl_client_wait_until; pass.c, "Timed requests").
 */
#include "internal.h"

static inline bool answered(struct rcl_mailbox *mb) {
    return !atomic_load_explicit(&mb->fn, memory_order_acquire); /* pairs: answer() release */
}

/* A server without a poller (every servicing thread blocked, the pool at RCL_POOL_MAX) serves
 * nobody until one returns: then the request is taken back and its caller runs it. */
static inline bool withdrawn(struct rcl_server *s, struct rcl_mailbox *mb) {
    return __builtin_expect(rcl_pool_exhausted(s), 0) && rcl_pool_withdraw(s, mb);
}

static bool cond_client_wait(struct rcl_server *s, struct rcl_mailbox *mb);

/* Nanoseconds from now to abstime on clock (0: passed). */
static uint64_t ns_left(clockid_t clock, const struct timespec *abstime) {
    struct timespec now;
    clock_gettime(clock, &now);
    int64_t sec = (int64_t)abstime->tv_sec - (int64_t)now.tv_sec;
    /* A deadline centuries away (2^40 s after boot) must not overflow into the past. */
    if (sec > 1000000000) return UINT64_MAX;
    int64_t left = sec * 1000000000 + ((int64_t)abstime->tv_nsec - (int64_t)now.tv_nsec);
    return left > 0 ? (uint64_t)left : 0;
}

/* Park until answered (true), or until abstime on clock when abstime is not NULL (false). */
static bool client_park(struct rcl_server *s, struct rcl_mailbox *mb, bool cancellable,
                        clockid_t clock, const struct timespec *abstime) {
    bool done = true;
    /* The timeout is a safety net for a wake-up hint the server missed (pass.c). */
    for (uint64_t timeout = 1000000;; timeout = timeout < 128000000 ? 2 * timeout : timeout) {
        atomic_store_explicit(&mb->parked, 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst); /* D1: pairs with D2 in flush_wakes */
        if (answered(mb) || withdrawn(s, mb)) break;
        if (cancellable &&
            atomic_load_explicit(&rcl_slow(mb)->wait, memory_order_acquire) == RCL_WAIT_WAITING &&
            cond_client_wait(s, mb))
            continue;
        uint64_t wait = timeout;
        if (abstime) {
            uint64_t left = ns_left(clock, abstime);
            if (!left) {
                done = false;
                break;
            }
            if (left < wait) wait = left;
        }
        rcl_futex_wait(&mb->parked, 1, wait);
        if (answered(mb)) break;
    }
    atomic_store_explicit(&mb->parked, 0, memory_order_relaxed);
    atomic_fetch_sub_explicit(&s->nparked, 1, memory_order_relaxed);
    return done;
}

/* Whether the calling thread's core has another runnable thread: sched_yield returns at once
 * when nothing else wants the core, and only after another thread ran otherwise. The base is
 * this thread's quickest yield so far (the machine's own syscall cost), not a constant. */
static RCL_TLS uint64_t tls_yield_min = UINT64_MAX;
/* What a yield cost this thread when another thread took its core: a round trip through the
 * other runnable threads, at least two context switches (smoothed; 0: never seen). */
static RCL_TLS uint64_t tls_switch_ns;
static bool core_shared(void) {
    uint64_t t0 = rcl_now_ns();
    sched_yield();
    uint64_t dt = rcl_now_ns() - t0;
    if (dt < tls_yield_min) tls_yield_min = dt;
    bool shared = dt > 2 * tls_yield_min + 1000;
    if (shared) tls_switch_ns = rcl_smooth(tls_switch_ns, dt);
    return shared;
}

/* Wait for the answer for about the cost of a futex wake-up (RCL_SPIN_NS), then park (pass.c,
 * "Waking a parked client"). Waiting knows its core: a client alone on it spins with the pause
 * hint, so that the round trip stays about one cache-line ping-pong. A client whose core other
 * threads want (clients outnumber the cores they may use) first spins for about what giving the
 * core away would cost it (tls_switch_ns: the answer may well come sooner, as when the server
 * runs a short section), then yields the core at every poll, so that the others post their own
 * requests and do their own work meanwhile. (Yielding from the first poll on lost 40 % on this
 * VM, where a yield that lets another thread run costs ~4.6 us and a delegated section of
 * 4,000 cycles ~2 us: bench/adaptive.py's waiting set.) */
static bool client_wait(struct rcl_server *s, struct rcl_mailbox *mb, clockid_t clock,
                        const struct timespec *abstime) {
    for (unsigned i = 0; i < 64; i++) {
        if (answered(mb)) return true;
        rcl_cpu_relax();
    }
    const uint64_t start = rcl_now_ns(), deadline = start + rcl_rt.cfg.spin_ns;
    /* 0 until measured: look at once. At most half the spin: a yield that waited for another
     * thread's whole time slice must not turn the waiting back into spin-then-park. */
    const uint64_t spin_first =
        tls_switch_ns < rcl_rt.cfg.spin_ns / 2 ? tls_switch_ns : rcl_rt.cfg.spin_ns / 2;
    bool shared = false, looked = false;
    uint64_t now = start; /* one clock read per round of 64 polls */
    for (unsigned round = 0;; round++) {
        if (!rcl_rt.cfg.wait_spin_only && (looked ? round % 16 == 0 : now - start >= spin_first)) {
            shared = core_shared(); /* look again now and then */
            looked = true;
        }
        for (int k = 0; k < 64; k++) {
            if (answered(mb)) return true;
            if (shared)
                sched_yield();
            else
                rcl_cpu_relax();
        }
        now = rcl_now_ns();
        if (withdrawn(s, mb) || now >= deadline) break;
        if (abstime && !ns_left(clock, abstime)) return answered(mb);
    }
    if (answered(mb)) return true;
    atomic_fetch_add_explicit(&s->nparked, 1, memory_order_seq_cst);
    /* A server thread waiting on another server is never cancelled. */
    return client_park(s, mb, rcl_self_server == NULL, clock, abstime);
}

void rcl_client_wait(struct rcl_server *s, struct rcl_mailbox *mb) {
    client_wait(s, mb, CLOCK_MONOTONIC, NULL);
}

bool rcl_client_wait_until(struct rcl_server *s, struct rcl_mailbox *mb, clockid_t clock,
                           const struct timespec *abstime) {
    return client_wait(s, mb, clock, abstime);
}

/* ------------------------------------------------------------------ the client's side */

struct cancel_arg {
    struct rcl_server *s;
    struct rcl_mailbox *mb;
};

static void client_cancelled(void *arg) {
    struct cancel_arg *a = arg;
    struct rcl_mailbox *mb = a->mb;
    struct rcl_mailbox_slow *slow = rcl_slow(mb);
    atomic_store_explicit(&slow->wait, RCL_WAIT_CANCEL, memory_order_seq_cst);
    rcl_futex_wake(&slow->wait, 1);
    pthread_cond_broadcast(slow->wait_cond);
    client_park(a->s, mb, false, CLOCK_MONOTONIC, NULL); /* (cancellation is disabled while
                                                          cleanup handlers run) */
    pthread_mutex_lock(mb->lock);
}

static bool cond_client_wait(struct rcl_server *s, struct rcl_mailbox *mb) {
    _Atomic uint32_t *wait = &rcl_slow(mb)->wait;
    uint32_t st = RCL_WAIT_WAITING;
    if (!atomic_compare_exchange_strong_explicit(wait, &st, RCL_WAIT_CLIENT, memory_order_acq_rel,
                                                 memory_order_acquire))
        return false;
    struct cancel_arg arg = {s, mb};
    int type;
    pthread_cleanup_push(client_cancelled, &arg);
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &type);
    while (atomic_load_explicit(wait, memory_order_acquire) == RCL_WAIT_CLIENT)
        rcl_futex_wait(wait, RCL_WAIT_CLIENT, 0);
    pthread_setcanceltype(type, NULL);
    pthread_cleanup_pop(0);
    atomic_store_explicit(wait, RCL_WAIT_NONE, memory_order_release); /* was RESUME */
    rcl_futex_wake(wait, 1);
    return true;
}
