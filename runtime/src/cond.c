/*
 * cond.c - condition waits inside critical sections, and the cancellation of a thread whose
 * delegated section waits.
 *
 * The condition variable and the mutex stay the program's own pthread objects: on a servicing
 * thread, the mutex of a delegated critical section is really held by that thread (pass.c
 * runs a request only under its mutex), so pthread_cond_wait's contract holds as is. The only
 * thing to add is to hand the server's polling role to a spare servicing thread before the
 * thread blocks (server.c), so that the server goes on serving -- including the critical
 * sections that will signal.
 *
 * ==========================================================================================
 * CANCELLATION OF A CLIENT WHOSE SECTION WAITS (mailbox fields wait and wait_cond)
 * ==========================================================================================
 *
 * With plain pthreads, pthread_cond_wait is a cancellation point: a thread cancelled while it
 * waits takes the mutex again, runs its cleanup handlers (which usually unlock it) and exits.
 * Delegated, the wait runs on a servicing thread while the client waits for its answer in a
 * futex call that is no cancellation point. This protocol gives the client the POSIX outcome:
 * the section is abandoned at its wait, the client holds the mutex when its cleanup handlers
 * run, and no condition signal is consumed.
 *
 * The client waits with asynchronous cancellation enabled only while the section is known to
 * be inside the wait and cannot get out of it without the client's consent, so that a
 * cancellation acting at any instruction of that window finds the section abandonable:
 *
 *   state     set by     meaning
 *   --------  ---------  ---------------------------------------------------------------
 *   NONE      server     no cancellable wait (also: the client left CLIENT, see RESUME)
 *   WAITING   server     the section waits on wait_cond (written before, release)
 *   CLIENT    client     WAITING -> CLIENT by CAS: the client waits, cancellable
 *   RESUME    server     CLIENT -> RESUME by CAS, then a futex wake: the wait returned, the
 *                        client must leave; it stores NONE and wakes the server
 *   CANCEL    client     its cleanup handler (cancellation acted while CLIENT or RESUME)
 *
 *   server, after pthread_cond_wait returns (mutex held):
 *       CAS WAITING -> NONE: go on.   Else: CLIENT -> RESUME, wake, wait while RESUME;
 *       NONE: go on.   CANCEL: pass a signal on (pthread_cond_signal: the wake-up this wait
 *       may have consumed goes to another waiter, a spurious one at worst) and abandon the
 *       request: rcl_pass_abandon releases the mutex, answers RCL_ANSWER_CANCELLED and
 *       unwinds the servicing thread to its loop (siglongjmp; the section's frames are C).
 *   client, parked on a request whose wait is WAITING (wait.c's cond_client_wait):
 *       CAS WAITING -> CLIENT; push the cleanup handler; asynchronous cancellation on (acts at
 *       once on a pending request); futex-wait while CLIENT; cancellation back to deferred;
 *       pop; store NONE; wake the server.
 *   client cleanup handler (cancellation acted, state CLIENT or RESUME):
 *       store CANCEL; wake the server; pthread_cond_broadcast(wait_cond) (the server cannot be
 *       past its wait, so the condition variable is alive; the broadcast is a spurious wake-up
 *       for other waiters, which POSIX allows); wait for the answer; pthread_mutex_lock: the
 *       cleanup handlers that follow run with the mutex held, as POSIX says.
 * Why it is correct: in CLIENT and RESUME only the client changes the state, and the server
 * runs no code of the section until the state leaves them; so when cancellation acts, the
 * section is at its wait and is abandoned there, and when the client leaves normally, the
 * server goes on as if nothing happened. Only top-level sections (not nested inline ones) whose
 * wait names their own mutex take part; other waits are not cancellation points for their
 * client (docs/runtime.md, "Known limits").
 * ==========================================================================================
 */
#include "internal.h"

/* The request whose wait a cancelled client may abandon, or NULL: a top-level delegated
 * section waiting with its own mutex. */
static struct rcl_mailbox *cancellable_request(pthread_mutex_t *lock) {
    struct rcl_worker *w = rcl_self_worker;
    if (!w || w->nactive != 1) return NULL;
    struct rcl_mailbox *mb = atomic_load_explicit(&w->cur, memory_order_relaxed);
    return mb && mb->lock == lock ? mb : NULL;
}

static void wait_begins(struct rcl_mailbox *mb, pthread_cond_t *cond) {
    struct rcl_mailbox_slow *slow = rcl_slow(mb);
    slow->wait_cond = cond;
    atomic_store_explicit(&slow->wait, RCL_WAIT_WAITING, memory_order_release);
    /* a parked client looks at the state only when it wakes: wake it now */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&mb->parked, memory_order_relaxed)) rcl_futex_wake(&mb->parked, 1);
}

/* Before any condition wait: wake the clients answered so far and hand the polling role over
 * (the wait may last), and enter the cancellable state when a cancelled client may abandon this
 * wait. Returns that request, or NULL. */
static struct rcl_mailbox *before_wait(pthread_cond_t *cond, pthread_mutex_t *lock) {
    /* adaptive mode judges a lock whose sections wait by its calls per second (adaptive.c;
     * a lock it does not track, in any mode, costs a look at one empty slot). The mode is not
     * read here: a local section may wait while another thread still loads the configuration
     * (TSan, many_waiters.c in RCL_MODE=local). */
    if (__builtin_expect(rcl_as_caller, 0))
        rcl_die("a critical section that a server runs as its caller (RCL_AS_CALLER) waits on a "
                "condition variable; such sections must run without that flag (caller.c)");
    rcl_adaptive_wait(lock);
    struct rcl_worker *w = rcl_self_worker;
    if (!w) return NULL; /* local mode or a local critical section: the pthread call alone */
    struct rcl_mailbox *mb = cancellable_request(lock);
    rcl_pass_flush_current(w);
    rcl_pool_before_block(w);
    if (mb) wait_begins(mb, cond);
    return mb;
}

/* The wait returned (mutex held): go on, or abandon the request of a cancelled client. */
static void wait_ends(struct rcl_mailbox *mb, pthread_cond_t *cond) {
    _Atomic uint32_t *wait = &rcl_slow(mb)->wait;
    uint32_t st = RCL_WAIT_WAITING;
    if (atomic_compare_exchange_strong_explicit(wait, &st, RCL_WAIT_NONE, memory_order_acq_rel,
                                                memory_order_acquire))
        return;
    for (;;) {
        switch (st) {
        case RCL_WAIT_CLIENT: /* ask the client to leave its cancellable wait */
            if (atomic_compare_exchange_strong_explicit(
                    wait, &st, RCL_WAIT_RESUME, memory_order_acq_rel, memory_order_acquire)) {
                rcl_futex_wake(wait, 1);
                st = RCL_WAIT_RESUME;
            }
            break;
        case RCL_WAIT_RESUME:
            rcl_futex_wait(wait, RCL_WAIT_RESUME, 0);
            st = atomic_load_explicit(wait, memory_order_acquire);
            break;
        case RCL_WAIT_CANCEL:
            pthread_cond_signal(cond);
            atomic_store_explicit(wait, RCL_WAIT_NONE, memory_order_relaxed);
            rcl_pass_abandon(rcl_self_worker, mb);
        default: /* NONE: the client left */
            return;
        }
    }
}

int rcl_cond_wait(pthread_cond_t *cond, pthread_mutex_t *lock) {
    struct rcl_mailbox *mb = before_wait(cond, lock);
    int r = pthread_cond_wait(cond, lock);
    if (mb) wait_ends(mb, cond);
    return r;
}

int rcl_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *lock,
                       const struct timespec *abstime) {
    struct rcl_mailbox *mb = before_wait(cond, lock);
    int r = pthread_cond_timedwait(cond, lock, abstime);
    if (mb) wait_ends(mb, cond);
    return r;
}

int rcl_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *lock, clockid_t clock,
                       const struct timespec *abstime) {
    struct rcl_mailbox *mb = before_wait(cond, lock);
    int r = pthread_cond_clockwait(cond, lock, clock, abstime);
    if (mb) wait_ends(mb, cond);
    return r;
}
