/*
 * server.c - a server's threads: who polls, parking, fork, blocking inside critical sections.
 *
 * The workers' life: a servicing thread is started, polls (one pass over the mailboxes after
 * the other, pass.c), parks when idle, pauses for a fork, hands the polling role over when its
 * critical section blocks, waits as a spare, and exits when the pool shrinks. pass.c holds the
 * mailbox protocol (how one request is taken, run and answered); this file calls it and is
 * never called by it.
 *
 * ==========================================================================================
 * THE SERVICING-THREAD PROTOCOL
 * ==========================================================================================
 *
 * A server is a set of servicing threads ("workers"), all pinned to the server's core, plus
 * one blocking detector. Exactly one worker holds the POLLING ROLE at a time: it scans the
 * mailboxes and runs critical sections (pass.c). The role is the pointer s->poller, changed
 * only under s->pool_lock. A critical section that blocks (a condition wait, read() on a pipe,
 * a page fault, a nested lock held by a local thread) blocks its worker, not the server: the
 * role moves to a spare worker, which goes on serving every other request.
 *
 * States of a worker:
 *
 *   SPARE    in s->spares, futex-waiting on w->wake; exits after RCL_POOL_IDLE_MS when more
 *            than RCL_POOL_SPARE spares are idle (shrink).
 *   POLLER   s->poller == w: scans, runs requests, parks when idle (below).
 *   LOST     w->lost == 1 and s->poller != w: it still runs the one request it started
 *            (w->busy_mb, listed in the server's busy set), possibly blocked inside it.
 *
 *   SPARE  -> POLLER  hand_over_locked() pops it (or creates it) and sets wake = 1.
 *   POLLER -> LOST    hand_over_locked(), called by
 *                       (a) the worker itself, in rcl_cond_wait & co. before it blocks
 *                           (explicit: immediate), or
 *                       (b) the blocking detector, when the poller has been inside the same
 *                           request for a whole detector period and /proc says its thread
 *                           is not running (unexpected blocking: system call, page fault).
 *   LOST   -> POLLER  pool_return(), after it answered its request, if s->poller is NULL
 *                     (the pool was at RCL_POOL_MAX when it blocked: nobody polled meanwhile).
 *   LOST   -> SPARE   pool_return() otherwise.
 *
 * The detector is a SCHED_IDLE thread pinned to the server's core: the kernel runs it only
 * when the core has nothing else to run, which is exactly when the poller blocked (a polling
 * or computing poller is always runnable). It wakes every RCL_BLOCK_DETECT_US while the poller
 * is awake, costs the poller nothing (an idle-policy thread does not preempt it), and parks
 * with the poller when the server parks (detector_parked, a Dekker pair with s->sleeping).
 * Unprivileged: SCHED_IDLE and /proc/self/task/<tid>/stat need no capability.
 *
 * Why no request is lost or run twice:
 *   - Only the poller takes new requests. A request stays posted (fn != NULL) until the worker
 *     that runs it answers, even after that worker lost the role. So the new poller must skip
 *     it: hand_over_locked() adds the request to the busy set BEFORE it publishes the new
 *     poller (release store of s->poller, and the futex wake), and the new poller reads the
 *     busy set after it saw itself as poller (acquire). The LOST worker removes its entry
 *     only AFTER it answered (fn = NULL, release). The poller looks a pending mailbox up in
 *     the set and, when it is not there, loads fn AGAIN: not finding it means it saw the
 *     removal (release stores in rcl_busy_remove, acquire loads in rcl_busy_has), so the
 *     reload sees the answer -- fn == NULL, or a new request posted after it, which it must
 *     run. (Using the fn loaded before the look-up ran answered requests a second time; the
 *     bounded-buffer test caught it.) Entries are added only by a hand-over, i.e. while no
 *     worker scans, so a scan reads the set's size once, at the start of its pass.
 *   - Exactly one poller: the role changes under pool_lock. A worker gives it up only in
 *     hand_over_locked() or by returning as a spare; it takes it only when woken with
 *     wake == 1 (set under pool_lock) or in pool_return() under pool_lock.
 *   - The detector races with the poller finishing its request: the poller would leave the
 *     critical section and scan on, while a new poller starts. The poller's side is free on
 *     the fast path: after each request it stores cur = NULL and then loads lost (plain moves,
 *     compiler barrier only). The detector stores lost = 1, then issues membarrier(2)
 *     (PRIVATE_EXPEDITED: a full barrier on every running thread of the process), then
 *     re-reads cur/ncs. If the poller is still in the same request, its later load of lost
 *     is ordered after the barrier and sees 1, so it will stop; the hand-over proceeds. If it
 *     already left (cur/ncs changed), the detector resets lost under pool_lock and hands
 *     nothing over; a poller that saw lost == 1 meanwhile asks still_poller(), which
 *     takes pool_lock and finds it still holds the role. Without membarrier(2) (old kernels)
 *     the detector is off and only explicit condition waits hand the role over.
 *   - Mutual exclusion is unchanged: a LOST worker keeps the batch mutex it held (pass.c
 *     runs a request only while holding its mutex), so the new poller's trylock fails for
 *     that lock, and requests for that lock wait while requests for other locks go on. A
 *     condition wait releases the mutex inside pthread_cond_wait, so other critical sections
 *     of that lock -- delegated or local -- run, and may signal.
 *   - Parked clients: the worker that answers a request wakes its client (pass.c's
 *     rcl_pass_flush), whichever state it is in.
 *
 * Parking an idle server (second Dekker pair, asymmetric where the kernel allows it):
 *   server: sleeping = 1; fence(seq_cst); membarrier(PRIVATE_EXPEDITED) [H]; re-scan: any
 *           request not seen before? then sleeping = 0 and serve; else futex_wait(sleeping, 1)
 *   client: fn = cs (release); compiler barrier [L]; if sleeping: exchange(sleeping, 0) and
 *           futex_wake(sleeping)
 * The posting client pays no fence: the barrier both sides of a Dekker pair need is paid by
 * the side that parks, which is rare (after RCL_SERVER_SPIN_NS idle), where posting is every
 * request. membarrier(2) runs a full barrier on every CPU that runs a thread of the process
 * (an interrupt), and a thread that does not run passed one when it was switched out. Take a
 * client whose post races with [H]. If its store of fn comes before that barrier in its
 * program, the store is visible before membarrier returns, and the re-scan sees it. If it
 * comes after, so does the client's load of sleeping ([L] keeps the compiler from moving it
 * up), which therefore sees the server's sleeping = 1 (made visible by the fence before [H])
 * and wakes it. So a post is never missed. (folly's asymmetric barriers and liburcu's
 * membarrier flavour rest on the same guarantee.) Where PRIVATE_EXPEDITED is not available
 * (Linux < 4.14, or a seccomp filter), rcl_post_light is false: the client fences after each
 * post and the server does not call membarrier, the symmetric pair. Measured (2-vCPU EPYC VM,
 * one driver keeping 32 mailboxes full): the fence after each post was the capacity probe's
 * bottleneck, 140 TSC cycles per request with it, 72 without (docs/results.md, "Fast path, issue
 * 11, second pass").
 * A server whose only pending requests are blocked by local holders parks with a timeout
 * (50 us doubling to 1 ms) so that it retries their mutexes without burning its core. Requests
 * run by servicing threads that lost the polling role need no retry: their worker
 * kicks the server when it answers, so they never shorten the park.
 *
 * Fork (delegate.c's pthread_atfork handlers): the forking thread bumps fork_gen, sets fork_hold
 * and kicks; the poller sees it at the top of its loop -- between two passes, holding no mutex
 * of the program -- acknowledges the generation in fork_ack and waits until the parent handler
 * clears fork_hold. A server without a poller is held by its pool lock instead (no worker can
 * take the role without it).
 * ==========================================================================================
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

RCL_TLS struct rcl_worker *rcl_self_worker;

/* ------------------------------------------------------------------ the pool's lock */

void rcl_spin_lock(rcl_spin_t *l) {
    uint32_t c = 0;
    if (atomic_compare_exchange_strong_explicit(&l->word, &c, 1, memory_order_acquire,
                                                memory_order_relaxed))
        return;
    for (int i = 0; i < 100; i++) { /* held for a few hundred ns at most: spin a little */
        rcl_cpu_relax();
        c = 0;
        if (atomic_compare_exchange_weak_explicit(&l->word, &c, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
    }
    while (atomic_exchange_explicit(&l->word, 2, memory_order_acquire) != 0)
        rcl_futex_wait(&l->word, 2, 0);
}

void rcl_spin_unlock(rcl_spin_t *l) {
    if (atomic_exchange_explicit(&l->word, 0, memory_order_release) == 2)
        rcl_futex_wake(&l->word, 1);
}

/* ------------------------------------------------------------------ membarrier */

static int barrier_cmd = -1; /* -1: not probed; 0: unavailable */
bool rcl_post_light; /* posts need no fence: park issues the heavy barrier (relaxed atomic) */

static void barrier_init(void) {
    long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
        barrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
    else if (q > 0 && (q & MEMBARRIER_CMD_GLOBAL))
        barrier_cmd = MEMBARRIER_CMD_GLOBAL;
    else
        barrier_cmd = 0;
    rcl_post_light = barrier_cmd == MEMBARRIER_CMD_PRIVATE_EXPEDITED;
}

/* A full barrier on every running thread of the process (the blocking detector, a parking
 * server's [H]). Nonzero: it failed. */
static long heavy_barrier(void) {
    return syscall(SYS_membarrier, barrier_cmd, 0, 0);
}

/* Light posts began and the barrier then failed (park): clients may still post without a fence
 * for a while. */
static bool post_light_lost(void) {
    return barrier_cmd == MEMBARRIER_CMD_PRIVATE_EXPEDITED &&
           !__atomic_load_n(&rcl_post_light, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ workers */

static void *worker_main(void *arg);
static void poller_unparked(struct rcl_server *s);

/* Runtime threads take no asynchronous signal: a signal sent to the process must reach one of
 * the program's threads, with the masks the program chose (a program that blocks SIGTERM in
 * every thread and takes it with sigwait must not be killed through a server thread).
 * Synchronous signals (faults in a critical section) stay deliverable. */
static void async_signals(sigset_t *set) {
    static const int sync_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
    sigfillset(set);
    for (size_t i = 0; i < sizeof sync_signals / sizeof sync_signals[0]; i++)
        sigdelset(set, sync_signals[i]);
}

void rcl_runtime_thread_attr(pthread_attr_t *attr) {
    sigset_t set;
    async_signals(&set);
    pthread_attr_init(attr);
    pthread_attr_setdetachstate(attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setsigmask_np(attr, &set); /* blocked from the thread's first instruction */
}

/* librcl's threads alive (servicing threads and detectors), from their start to their return:
 * orphaned() compares the process's live threads with it. */
static _Atomic int runtime_threads;

void rcl_runtime_thread_start(void) {
    atomic_fetch_add_explicit(&runtime_threads, 1, memory_order_relaxed);
    /* Again from inside: sanitizers' pthread_create restores the creator's mask in the new
     * thread, overriding the attribute's. */
    sigset_t set;
    async_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* A new worker, made the poller. pool_lock held. NULL (poller unchanged) if no thread can be
 * made. */
static struct rcl_worker *create_worker(struct rcl_server *s) {
    struct rcl_worker *w = s->free;
    bool reused = w != NULL;
    if (w)
        s->free = w->next;
    else if (posix_memalign((void **)&w, RCL_CACHE_LINE, sizeof *w) != 0)
        return NULL;
    /* Field by field, atomics atomically: the detector may still look at a reused structure
     * it saw as poller long ago (it only compares and reads atomics). */
    w->s = s;
    w->id = s->next_id++;
    atomic_store_explicit(&w->tid, 0, memory_order_relaxed);
    atomic_store_explicit(&w->cur, NULL, memory_order_relaxed);
    atomic_store_explicit(&w->ncs, 0, memory_order_relaxed);
    atomic_store_explicit(&w->lost, 0, memory_order_relaxed);
    atomic_store_explicit(&w->wake, 1, memory_order_relaxed);
    w->busy_mb = NULL;
    w->next = NULL;
    w->spare_since = 0;
    w->held = NULL;
    w->nactive = 0;

    /* Explicit scheduling: a worker made by the SCHED_IDLE detector must not inherit it. */
    pthread_attr_t attr;
    struct sched_param sp = {0};
    rcl_runtime_thread_attr(&attr);
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
    pthread_attr_setschedparam(&attr, &sp);
    /* The poller from the thread's first instruction on (rcl_pool_before_block reads it). */
    struct rcl_worker *prev = atomic_load_explicit(&s->poller, memory_order_relaxed);
    atomic_store_explicit(&s->poller, w, memory_order_release);
    pthread_t t;
    int err = pthread_create(&t, &attr, worker_main, w);
    pthread_attr_destroy(&attr);
    if (err) {
        atomic_store_explicit(&s->poller, prev, memory_order_release);
        static _Atomic int warned;
        if (!atomic_exchange(&warned, 1))
            rcl_warn("server %d: cannot start a servicing thread: %s", s->index, strerror(err));
        w->next = s->free;
        s->free = w;
        return NULL;
    }
    atomic_fetch_add_explicit(&s->nworkers, 1, memory_order_relaxed);
    if (!reused) { /* listed once, for good (preempt.c) */
        w->all_next = atomic_load_explicit(&s->all, memory_order_relaxed);
        atomic_store_explicit(&s->all, w, memory_order_release);
    }
    return w;
}

/* Move the polling role from w (the poller, running request mb) to a spare. pool_lock held. */
static void hand_over_locked(struct rcl_server *s, struct rcl_worker *w, struct rcl_mailbox *mb) {
    atomic_store_explicit(&w->lost, 1, memory_order_relaxed);
    w->busy_mb = mb;
    if (mb) rcl_busy_add(s, mb);
    struct rcl_worker *y = s->spares;
    if (y) {
        s->spares = y->next;
        atomic_fetch_sub_explicit(&s->nspares, 1, memory_order_relaxed);
        atomic_store_explicit(&s->poller, y, memory_order_release);
        atomic_store_explicit(&y->wake, 1, memory_order_release); /* pairs: wait_spare */
        rcl_futex_wake(&y->wake, 1);
        return;
    }
    /* A new worker starts with wake == 1 and polls at once. Setting wake again here would be
     * wrong: the thread may already have consumed it, and a stale wake == 1 would later let it
     * poll beside the real poller. */
    if (atomic_load_explicit(&s->nworkers, memory_order_relaxed) < (uint32_t)rcl_rt.cfg.pool_max)
        y = create_worker(s); /* publishes itself as the poller before its thread starts */
    if (!y) {
        rcl_stat_add(&s->exhausted, 1);
        atomic_store_explicit(&s->poller, NULL, memory_order_release);
        /* Nobody serves until a worker returns: waiting clients take their requests back. */
        rcl_pass_wake_waiting_clients(s);
    }
}

bool rcl_pool_withdraw(struct rcl_server *s, struct rcl_mailbox *mb) {
    bool taken = false;
    rcl_spin_lock(&s->pool_lock);
    /* No poller: no worker starts a request until one becomes the poller, which happens only
     * under pool_lock. A request in the busy set is being run by its LOST worker: keep it. */
    if (!atomic_load_explicit(&s->poller, memory_order_relaxed) &&
        atomic_load_explicit(&mb->fn, memory_order_relaxed) &&
        !rcl_busy_has(s, mb, atomic_load_explicit(&s->nbusy, memory_order_relaxed))) {
        mb->status = RCL_ANSWER_HAND_BACK;
        atomic_store_explicit(&mb->fn, NULL, memory_order_relaxed); /* the client's own line */
        rcl_stat_add(&s->back_exhausted, 1);
        taken = true;
    }
    rcl_spin_unlock(&s->pool_lock);
    return taken;
}

void rcl_pool_before_block(struct rcl_worker *w) {
    struct rcl_server *s = w->s;
    if (atomic_load_explicit(&s->poller, memory_order_relaxed) != w) return; /* already LOST */
    rcl_spin_lock(&s->pool_lock);
    if (atomic_load_explicit(&s->poller, memory_order_relaxed) == w) {
        hand_over_locked(s, w, atomic_load_explicit(&w->cur, memory_order_relaxed));
        rcl_stat_add(&s->handovers, 1);
    }
    rcl_spin_unlock(&s->pool_lock);
}

static bool still_poller(struct rcl_worker *w) {
    struct rcl_server *s = w->s;
    rcl_spin_lock(&s->pool_lock);
    bool still = atomic_load_explicit(&s->poller, memory_order_relaxed) == w;
    if (still) atomic_store_explicit(&w->lost, 0, memory_order_relaxed); /* false alarm */
    rcl_spin_unlock(&s->pool_lock);
    return still;
}

static bool pool_return(struct rcl_worker *w) {
    struct rcl_server *s = w->s;
    rcl_spin_lock(&s->pool_lock);
    if (w->busy_mb) rcl_busy_remove(s, w->busy_mb); /* after the answer: see the design comment */
    w->busy_mb = NULL;
    atomic_store_explicit(&w->lost, 0, memory_order_relaxed);
    bool poll = atomic_load_explicit(&s->poller, memory_order_relaxed) == NULL;
    if (poll) {
        atomic_store_explicit(&s->poller, w, memory_order_release);
    } else {
        w->next = s->spares;
        s->spares = w;
        w->spare_since = rcl_now_ns();
        atomic_fetch_add_explicit(&s->nspares, 1, memory_order_relaxed);
    }
    rcl_spin_unlock(&s->pool_lock);
    /* The poller may be parked with requests it skipped because of our busy entry. */
    rcl_server_kick(s);
    return poll;
}

static bool wait_spare(struct rcl_worker *w) {
    struct rcl_server *s = w->s;
    const uint64_t idle_ns = rcl_rt.cfg.pool_idle_ns;
    for (;;) {
        if (atomic_load_explicit(&w->wake, memory_order_acquire)) { /* pairs: hand-over */
            atomic_store_explicit(&w->wake, 0, memory_order_relaxed);
            return true;
        }
        rcl_futex_wait(&w->wake, 0, idle_ns);
        if (atomic_load_explicit(&w->wake, memory_order_acquire)) continue;
        /* Timed out (or a spurious return): shrink if enough spares remain and we idled long
         * enough. We are still in s->spares: unlink ourselves. */
        bool leave = false;
        rcl_spin_lock(&s->pool_lock);
        if (!atomic_load_explicit(&w->wake, memory_order_relaxed) &&
            atomic_load_explicit(&s->nspares, memory_order_relaxed) >
                (uint32_t)rcl_rt.cfg.pool_spare &&
            rcl_now_ns() - w->spare_since >= idle_ns) {
            for (struct rcl_worker **pp = &s->spares; *pp; pp = &(*pp)->next)
                if (*pp == w) {
                    *pp = w->next;
                    leave = true;
                    break;
                }
            if (leave) {
                atomic_fetch_sub_explicit(&s->nspares, 1, memory_order_relaxed);
                atomic_fetch_sub_explicit(&s->nworkers, 1, memory_order_relaxed);
                w->next = s->free; /* the structure is reused, never freed: the detector may */
                s->free = w;       /* still read it */
            }
        }
        rcl_spin_unlock(&s->pool_lock);
        if (leave) return false;
    }
}

/* ------------------------------------------------------------------ parking */

/* The program's threads have all exited: its main thread ended with pthread_exit, and the
 * others returned. The original process would end then (glibc's last thread calls exit(0));
 * librcl's threads, which never exit on their own, must not keep it alive. An idle poller
 * looks after each park that lasted RCL_ORPHAN_CHECK_NS: the live (non-zombie) threads of
 * /proc/self/task, at most runtime_threads. A thread starting or exiting only makes the count
 * larger (a runtime thread counts itself after it exists, uncounts itself before it goes), so
 * a live program thread is never missed; a late answer is found at the next park. */
#define RCL_ORPHAN_CHECK_NS 500000000u
static bool orphaned(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return false;
    int live = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[sizeof "/proc/self/task//stat" + sizeof e->d_name], buf[512];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue; /* gone meanwhile */
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0) continue;
        buf[n] = '\0';
        const char *state = strrchr(buf, ')'); /* "tid (comm) S ...": comm may hold ')' */
        if (state && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X')) continue;
        live++;
    }
    closedir(d);
    return live <= atomic_load_explicit(&runtime_threads, memory_order_relaxed);
}

static void exit_if_orphaned(void) {
    static _Atomic int exiting;
    /* A sanitizer's runtime may run a thread of its own (ThreadSanitizer's background thread),
     * which this count cannot tell from the program's: there, the process stays (a known limit,
     * docs/runtime.md). */
    if (RCL_SANITIZED) return;
    if (orphaned() && !atomic_exchange_explicit(&exiting, 1, memory_order_relaxed)) exit(0);
}

static void park(struct rcl_server *s, unsigned skipped, uint64_t timeout_ns) {
    atomic_store_explicit(&s->sleeping, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst); /* pairs with the fence in rcl_server_kick */
    /* [H]: pairs with [L] in rcl_server_kick_posted (design comment). Should the barrier ever
     * fail (it cannot once registered, short of a kernel change), posts fence from now on; a
     * client may still post without one for a while (it read the flag before), so from then on
     * every park is bounded (1 ms): an unseen post waits that long, it is never lost. */
    if (__atomic_load_n(&rcl_post_light, __ATOMIC_RELAXED) && heavy_barrier() != 0) {
        rcl_warn("server %d: membarrier(2) failed: %s; posts fence from now on", s->index,
                 strerror(errno));
        __atomic_store_n(&rcl_post_light, false, __ATOMIC_RELAXED);
    }
    if (post_light_lost() && (!timeout_ns || timeout_ns > 1000000)) timeout_ns = 1000000;
    if (rcl_pass_posted(s) > skipped || /* a request arrived after our last pass */
        atomic_load_explicit(&s->fork_hold, memory_order_relaxed)) {
        atomic_store_explicit(&s->sleeping, 0, memory_order_seq_cst);
        poller_unparked(s);
        return;
    }
    rcl_stat_add(&s->parks, 1);
    rcl_futex_wait(&s->sleeping, 1, timeout_ns);
    atomic_store_explicit(&s->sleeping, 0, memory_order_seq_cst);
    poller_unparked(s);
}

static inline void wake_parked(struct rcl_server *s) {
    if (atomic_load_explicit(&s->sleeping, memory_order_relaxed) &&
        atomic_exchange_explicit(&s->sleeping, 0, memory_order_relaxed))
        rcl_futex_wake(&s->sleeping, 1);
}

void rcl_server_kick(struct rcl_server *s) {
    atomic_thread_fence(memory_order_seq_cst); /* pairs with the fence in park */
    wake_parked(s);
}

void rcl_server_kick_posted(struct rcl_server *s) {
    if (__atomic_load_n(&rcl_post_light, __ATOMIC_RELAXED))
        atomic_signal_fence(memory_order_seq_cst); /* [L]: pairs with [H] in park */
    else
        atomic_thread_fence(memory_order_seq_cst); /* pairs with the fence in park */
    wake_parked(s);
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

/* Poll while w holds the polling role, one pass (pass.c) after the other. Returns when w lost
 * it inside a critical section; the request it was running has been answered by then (its
 * client woken). */
static void poll_loop(struct rcl_worker *w) {
    struct rcl_server *s = w->s;
    const uint64_t spin_ns = rcl_rt.cfg.server_spin_ns;
    uint64_t idle_since = 0, blocked_timeout = 50000;
    unsigned idle_passes = 0, last_served = 0;
    for (;;) {
        if (__builtin_expect(atomic_load_explicit(&s->fork_hold, memory_order_acquire), 0))
            fork_pause(s);
        struct rcl_pass p;
        w->pass = &p;
        p.light = last_served <= 1; /* where serve() writes an answer (pass.c) */
        enum rcl_pass_end end = rcl_pass_scan(w, &p);
        if (end == RCL_PASS_WAIT) {
            /* A request waited long enough for a local holder's mutex: hand the polling role to
             * a spare (as a condition wait does) and wait for the mutex in pthread_mutex_lock,
             * so that from then on the request competes for it as a thread of the original
             * program would (queued in the mutex's futex, woken at an unlock). w runs it as a
             * worker that lost the role. */
            rcl_pool_before_block(w);
            rcl_pass_serve_waited(w, &p);
        }
        rcl_pass_release(w);
        last_served = p.served;
        /* Still the poller? Not after a wait; after the detector's flag, ask (a false alarm
         * keeps the role: see "Why no request is lost or run twice"). */
        bool still = end == RCL_PASS_DONE || (end == RCL_PASS_LOST && still_poller(w));
        if (p.served || p.back) {
            rcl_stat_add(&s->served, p.served); /* the new poller may add too: a lost count at
                                               worst, this is a statistic */
            if (p.nanswered) rcl_pass_flush(s, &p);
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
         * kicks us (pool_return). Only local holders' mutexes are retried with a timeout, so
         * that an idle process whose sections wait on conditions costs nothing. */
        if (p.blocked) {
            park(s, p.blocked + p.busy, blocked_timeout);
            if (blocked_timeout < 1000000) blocked_timeout *= 2;
        } else {
            uint64_t before = rcl_now_ns();
            park(s, p.busy, RCL_ORPHAN_CHECK_NS);
            if (rcl_now_ns() - before >= RCL_ORPHAN_CHECK_NS) exit_if_orphaned();
            idle_since = 0;
        }
    }
}

/* ------------------------------------------------------------------ a worker's life */

static void *worker_main(void *arg) {
    struct rcl_worker *w = arg;
    struct rcl_server *s = w->s;
    rcl_own_code++; /* until it is a server thread (delegate.c, "The program's allocator") */
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
    rcl_own_code--; /* (outside a critical section a server thread's calls run in place) */
    w->errp = &errno;
    if (rcl_rt.prof_server_thread) rcl_rt.prof_server_thread();
    /* A request abandoned by rcl_pass_abandon lands here, its worker LOST (cond.c): it
     * returns to the pool as after any request it finished without the polling role. */
    bool poll = sigsetjmp(w->abandon, 0) && pool_return(w);
    for (;;) {
        if (!poll && !wait_spare(w)) {
            rcl_worker_retire(s); /* its scheduler statistics stay in RCL_STATS */
            atomic_fetch_sub_explicit(&runtime_threads, 1, memory_order_relaxed);
            return NULL;
        }
        do
            poll_loop(w);
        while (pool_return(w));
        poll = false;
    }
}

/* ------------------------------------------------------------------ the blocking detector */

/* Whether thread tid is not running or runnable (sleeping, in disk wait, stopped). */
static bool thread_blocked(int tid) {
    if (tid <= 0) return false;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* "tid (comm) S ...": comm may contain ')' */
    return p && p[1] == ' ' && p[2] && p[2] != 'R';
}

static void detected_handover(struct rcl_server *s, struct rcl_worker *w, struct rcl_mailbox *mb,
                              uint64_t ncs) {
    rcl_spin_lock(&s->pool_lock);
    if (atomic_load_explicit(&s->poller, memory_order_relaxed) == w) {
        atomic_store_explicit(&w->lost, 1, memory_order_seq_cst);
        heavy_barrier(); /* see "Why no request is ... run twice" */
        if (atomic_load_explicit(&w->cur, memory_order_relaxed) == mb &&
            atomic_load_explicit(&w->ncs, memory_order_relaxed) == ncs) {
            hand_over_locked(s, w, mb);
            rcl_stat_add(&s->detected, 1);
        } else {
            atomic_store_explicit(&w->lost, 0, memory_order_relaxed);
        }
    }
    rcl_spin_unlock(&s->pool_lock);
}

static void poller_unparked(struct rcl_server *s) {
    atomic_thread_fence(memory_order_seq_cst); /* pairs with the detector's fence */
    if (atomic_load_explicit(&s->detector_parked, memory_order_relaxed) &&
        atomic_exchange_explicit(&s->detector_parked, 0, memory_order_relaxed))
        rcl_futex_wake(&s->detector_parked, 1);
}

static void *detector_main(void *arg) {
    struct rcl_server *s = arg;
    rcl_own_code = 1; /* it never runs a section (delegate.c, "The program's allocator") */
    rcl_runtime_thread_start();
    char name[32];
    snprintf(name, sizeof name, "rcl-server-%dw", s->index);
    name[15] = '\0';
    pthread_setname_np(pthread_self(), name);
    if (rcl_rt.prof_server_thread) rcl_rt.prof_server_thread();
    if (s->cpu >= 0) rcl_placement_bind_self(&rcl_rt.pl, s->cpu);
    struct sched_param sp = {0};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp); /* best effort */

    const uint64_t period = rcl_rt.cfg.detect_ns;
    const struct timespec ts = {(time_t)(period / 1000000000u), (long)(period % 1000000000u)};
    struct rcl_worker *last = NULL;
    uint64_t last_ncs = 0;
    for (;;) {
        if (atomic_load_explicit(&s->sleeping, memory_order_relaxed)) { /* the poller parked */
            atomic_store_explicit(&s->detector_parked, 1, memory_order_relaxed);
            atomic_thread_fence(memory_order_seq_cst); /* pairs: poller_unparked */
            if (atomic_load_explicit(&s->sleeping, memory_order_relaxed))
                rcl_futex_wait(&s->detector_parked, 1, 0);
            atomic_store_explicit(&s->detector_parked, 0, memory_order_relaxed);
            last = NULL;
            continue;
        }
        clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
        struct rcl_worker *w = atomic_load_explicit(&s->poller, memory_order_acquire);
        struct rcl_mailbox *mb = w ? atomic_load_explicit(&w->cur, memory_order_relaxed) : NULL;
        uint64_t ncs = w ? atomic_load_explicit(&w->ncs, memory_order_relaxed) : 0;
        if (mb && w == last && ncs == last_ncs &&
            thread_blocked(atomic_load_explicit(&w->tid, memory_order_relaxed))) {
            detected_handover(s, w, mb, ncs);
            last = NULL;
            continue;
        }
        last = mb ? w : NULL;
        last_ncs = ncs;
    }
    atomic_fetch_sub_explicit(&runtime_threads, 1, memory_order_relaxed);
    return NULL;
}

/* ------------------------------------------------------------------ start */

void rcl_pool_after_fork(void) {
    atomic_store_explicit(&runtime_threads, 0, memory_order_relaxed); /* (only the forker) */
    barrier_cmd = -1; /* a child registers for membarrier(2) again when its servers start */
    rcl_post_light = false;
}

static void pool_start(struct rcl_server *s) {
    if (barrier_cmd < 0) barrier_init(); /* under rt_init_lock: start-up is serialised */
    rcl_spin_lock(&s->pool_lock);
    if (!create_worker(s)) rcl_die("cannot start server %d", s->index);
    rcl_spin_unlock(&s->pool_lock);
    if (!rcl_rt.cfg.detect_ns) return;
    if (!barrier_cmd) {
        rcl_warn("server %d: membarrier(2) is unavailable: critical sections that block "
                 "without rcl_cond_wait stall their server",
                 s->index);
        return;
    }
    pthread_attr_t attr;
    rcl_runtime_thread_attr(&attr);
    pthread_t t;
    int err = pthread_create(&t, &attr, detector_main, s);
    pthread_attr_destroy(&attr);
    if (err) rcl_warn("server %d: cannot start the blocking detector: %s", s->index, strerror(err));
}

void rcl_server_init(struct rcl_server *s, int index, int cpu) {
    memset(s, 0, sizeof *s);
    s->index = index;
    s->cpu = cpu;
    pthread_mutex_init(&s->reg_lock, NULL);
    if (posix_memalign((void **)&s->chunks, RCL_CHUNK_ALIGN, sizeof *s->chunks) != 0)
        rcl_die("out of memory allocating server %d's mailboxes", index);
    memset(s->chunks, 0, sizeof *s->chunks);
}

void rcl_server_start(struct rcl_server *s) {
    pool_start(s);
}
