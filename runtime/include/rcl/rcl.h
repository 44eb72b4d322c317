/*
 * rcl.h - Remote Core Locking runtime (librcl), public interface.
 *
 * NAME
 *     rcl_delegate, rcl_delegate_ctx, rcl_delegate_timed, rcl_cond_wait, rcl_cond_timedwait,
 * rcl_cond_clockwait, rcl_delegate_allocator, rcl_start, rcl_lock_assign, rcl_lock_server,
 * rcl_server_count, rcl_mode, rcl_on_server - run critical sections of pthread mutexes on dedicated
 * server threads
 *
 * SYNOPSIS
 *     #include <rcl/rcl.h>
 *     link with -lrcl (or librcl.a plus -lhwloc -lpthread)
 *
 * DESCRIPTION
 *     A critical section (CS) of a pthread_mutex_t is handed, as a function and a context
 *     pointer, to the server thread that the mutex maps to. The server runs it while it holds
 *     the mutex and returns the function's int result to the caller. The mutex stays an
 *     ordinary pthread_mutex_t: librcl adds no per-lock memory, and code that locks the same
 *     mutex with pthread_mutex_lock/trylock/timedlock/unlock (a "local" critical section,
 *     e.g. in a library that was not rewritten) stays mutually exclusive with the delegated
 *     ones, because a server takes the real mutex around every batch of requests it runs
 *     for that lock (see runtime/src/pass.c).
 *
 *     The runtime starts lazily on the first delegated call. Servers are pinned with hwloc to
 *     cores of the most efficient core kind. Everything is configured from the environment
 *     (read once, at start-up); docs/runtime.md lists every variable:
 *         RCL_MODE           adaptive (default) | delegate | local
 *         RCL_SERVERS        number of servers (default 1)
 *         RCL_SERVER_CPUS    explicit server CPUs, e.g. "3" or "2,3"
 *         RCL_CPU_KINDS      declared core kinds, least efficient first: "little=0-5;big=6-7"
 *         RCL_CLIENT_AFFINITY exclude | any: keep registered client threads off server cores
 *         RCL_LOCK_SERVERS   name=server pairs: "cache_lock=0,stats_lock=1"
 *         RCL_SPIN_NS        how long a waiting client spins before it parks
 *         RCL_SERVER_SPIN_NS how long an idle server spins before it parks
 *         RCL_POOL_MAX       servicing threads per server (blocking critical sections)
 *         RCL_POOL_SPARE     idle spare servicing threads a server keeps
 *         RCL_POOL_IDLE_MS   how long a spare beyond RCL_POOL_SPARE idles before it exits
 *         RCL_BLOCK_DETECT_US period of the blocking detector (0: off)
 *         RCL_STATS          1: what each server did, on stderr at exit; json:FILE
 *     A malformed value produces one line on stderr naming the variable and what it accepts,
 *     and the default is used.
 *
 * THREADS
 *     Every function here may be called by any thread, including from inside a delegated
 *     critical section (nested delegation, see rcl_delegate). No function here is
 *     async-signal-safe.
 */
#ifndef RCL_RCL_H
#define RCL_RCL_H

#include <pthread.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RCL_API __attribute__((visibility("default")))

/** A critical section: receives the context pointer given to rcl_delegate. */
typedef int (*rcl_cs_fn)(void *ctx);

/**
 * rcl_delegate - run fn(ctx) as a critical section of *lock and return its result.
 *
 * Guarantees: fn runs exactly once, while *lock is held: on the server that *lock maps to, or
 * in the caller between pthread_mutex_lock(lock) and pthread_mutex_unlock(lock) (see Modes);
 * no other critical section of *lock (delegated or local) runs at the same time. Every write
 * the caller made before the call is visible to fn, and every write fn made is visible to the
 * caller after the call returns (release/acquire through the mailbox, or the mutex).
 *
 * Cost: in delegate mode, about one cache-line round trip between the caller's core and the
 * server's core plus fn itself; no atomic read-modify-write instruction on the server's
 * per-request path. The caller spins for about the cost of a futex wake-up (RCL_SPIN_NS), then
 * parks until the server answers.
 *
 * Nesting: fn may itself call rcl_delegate. A lock mapped to the same server runs inline on
 * the server; a lock mapped to another server is delegated there while this server waits.
 * Rule that keeps this deadlock-free: the "delegates to" relation between servers must be
 * acyclic (as a lock order between servers). A cycle is detected at run time and the process
 * aborts with a message naming both servers, instead of hanging. Delegating, from inside a
 * CS of a lock, a CS on that same lock aborts too (it would self-deadlock with a plain mutex).
 *
 * Modes: RCL_MODE=adaptive (the default) runs each lock's sections in the caller or on the
 * server, whichever the runtime measures to be cheaper for that lock, and may change at any
 * call; RCL_MODE=delegate always delegates; with RCL_MODE=local, fn runs in the caller between
 * pthread_mutex_lock(lock) and pthread_mutex_unlock(lock): the same binary without delegation,
 * for A/B comparisons.
 *
 * Thread identity: fn may run on another thread. errno travels with the call (fn sees the
 * caller's errno, and the caller sees the errno fn left). fn must not depend on the caller's
 * other thread-local state (__thread variables, pthread_self(), signal masks): the server
 * threads block every asynchronous signal.
 *
 * Run by the caller: when the server must not run fn -- the caller itself holds *lock (a
 * recursive mutex taken again), *lock is robust (only the caller's own lock call can report
 * EOWNERDEAD), trylock fails with an error, or every servicing thread of the server is blocked
 * -- the caller runs fn itself between pthread_mutex_lock(lock) and pthread_mutex_unlock(lock),
 * exactly as unconverted code does. RCL_STATS=1 counts these.
 *
 * Destroying the mutex: once rcl_delegate has returned, the server no longer touches *lock
 * unless another posted request needs it: the caller may destroy and free it.
 *
 * Cancellation: a condition wait of fn (rcl_cond_wait and the timed forms, in fn itself, waiting
 * with *lock) is a cancellation point for the caller, as pthread_cond_wait is: if the caller is
 * cancelled there, fn is abandoned at its wait, and the caller holds *lock when its cleanup
 * handlers run.
 *
 * Returns fn's result. Never fails: a misconfigured runtime falls back to its defaults.
 */
RCL_API int rcl_delegate(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx);

/**
 * rcl_delegate_ctx - rcl_delegate for a context of `size` bytes that may travel by copy.
 *
 * The same contract as rcl_delegate, when fn reads and writes its context only through its
 * argument, within those `size` bytes, and keeps no pointer to it after returning (pointers
 * the context holds are followed as usual). Then a small context (up to RCL_CTX_INLINE_MAX
 * bytes, the room the request's cache line has) is copied into the request itself and what fn
 * wrote there is copied back before the call returns, so that the server reads no line of the
 * caller's stack; a larger one goes by pointer. What rcl-rewrite emits for a section with a
 * context.
 */
RCL_API int rcl_delegate_ctx(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx, size_t size);
#define RCL_CTX_INLINE_MAX 32 /**< bytes of context that travel inside the request */

/**
 * rcl_delegate_allocator - rcl_delegate_ctx (size 0: the context by pointer, as rcl_delegate)
 * for a critical section of the program's own memory allocator (a file of a program that
 * defines malloc, free or their kin).
 *
 * The runtime allocates memory while it starts (hwloc's topology, the servers, glibc's TLS of
 * each server thread), so a section of the allocator must never start it: the allocation would
 * enter the allocator again inside its own section, possibly while the same thread holds
 * another of its locks. This call never starts the runtime: it runs fn in the caller, under
 * *lock (exactly what unconverted code does, which mixed mode keeps exclusive with the
 * delegated sections), while the runtime is not started -- before rcl_start, which rcl-rewrite
 * calls from a constructor of such files, and in a forked child until something starts it
 * again -- and whenever the calling thread is inside librcl's own code. Otherwise the contract
 * of rcl_delegate_ctx.
 */
RCL_API int rcl_delegate_allocator(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx, size_t size);

/**
 * rcl_delegate_flags - rcl_delegate_ctx, or rcl_delegate_allocator with RCL_ALLOCATOR, for a
 * section that the flags describe:
 *   RCL_AS_CALLER  fn uses its calling thread's state in the C library: thread-local variables,
 *                  pthread_self, thread-specific data. The server runs it with the caller's
 *                  thread pointer (x86-64 with FSGSBASE, AArch64), so that fn sees the
 *                  caller's state; meanwhile the caller's signals are masked and its
 *                  cancellation disabled (what arrives acts after the call). fn must not wait
 *                  on a condition (rcl_cond_*). Where the machine cannot, fn runs in the caller
 *                  under *lock, as unconverted code does (RCL_STATS counts these).
 *   RCL_ALLOCATOR  a section of the program's own allocator (rcl_delegate_allocator).
 */
#define RCL_AS_CALLER 1u
#define RCL_ALLOCATOR 2u
RCL_API int rcl_delegate_flags(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx, size_t size,
                               unsigned flags);

/**
 * rcl_delegate_timed - a critical section entered with pthread_mutex_timedlock (clock
 * CLOCK_REALTIME) or pthread_mutex_clocklock (any other clock): run fn(ctx) as a critical
 * section of *lock if the lock is had by abstime, on clock.
 *
 * Returns 0 when fn ran (its result in *result), with the contract of rcl_delegate_ctx (size:
 * the context's, or 0); otherwise what the timed lock would have returned -- ETIMEDOUT at the
 * deadline, EINVAL for a deadline it refuses, EDEADLK... -- and fn did not run. As with the
 * pthread functions, a lock that is free is had even when abstime has passed.
 *
 * A delegated call is posted with its deadline. Until a server thread claims it, its caller may
 * withdraw it; at the deadline it does, tries the mutex once itself (a timed lock's last
 * attempt), and returns ETIMEDOUT if that fails. Once claimed it runs, unless the mutex stays
 * held by local critical sections until the deadline (the server then waits for it with the
 * timed lock itself and the call returns ETIMEDOUT). What rcl-rewrite emits for a section
 * entered with a timed lock: the statements of the section then run in place, without the lock,
 * as they did in the original program when its timed lock failed.
 */
RCL_API int rcl_delegate_timed(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx, size_t size,
                               clockid_t clock, const struct timespec *abstime, int *result);

/**
 * rcl_start - start the runtime now (it otherwise starts at the first delegated call): read the
 * configuration from the environment, place and start the servers. Idempotent and thread-safe.
 * rcl-rewrite calls it from a constructor in the files of a program's own memory allocator
 * (rcl_delegate_allocator).
 */
RCL_API void rcl_start(void);

/**
 * rcl_cond_wait, rcl_cond_timedwait, rcl_cond_clockwait - wait on a condition variable inside a
 * critical section of *lock.
 *
 * Same contract as pthread_cond_wait/timedwait/clockwait (the caller holds *lock; it is released
 * while waiting and held again on return; spurious wake-ups are allowed; the timed forms return
 * ETIMEDOUT at the deadline), and cond stays an ordinary pthread_cond_t: it may be signalled or
 * broadcast from delegated critical sections, from local ones, or by threads holding no lock.
 *
 * Inside a delegated critical section the call first hands the server's polling role to a spare
 * servicing thread of the same server, so only this critical section waits: other requests,
 * including other critical sections of *lock (which may be the ones that signal), go on. The
 * waiting critical section resumes on its own servicing thread once it holds *lock again.
 * Anywhere else (local mode, a local critical section) these are the pthread calls.
 * A plain pthread_cond_wait inside a delegated critical section works too, but the server
 * notices it only through its blocking detector (a bounded delay, see docs/runtime.md).
 */
RCL_API int rcl_cond_wait(pthread_cond_t *cond, pthread_mutex_t *lock);
RCL_API int rcl_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *lock,
                               const struct timespec *abstime);
RCL_API int rcl_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *lock, clockid_t clock,
                               const struct timespec *abstime);

/**
 * rcl_lock_assign - serve *lock on server number `server` (0 <= server < rcl_server_count()).
 *
 * By default a lock maps to a server by a hash of its address. An explicit assignment keeps two
 * hot locks off the same server. Call it before the lock's first delegated critical section,
 * or while no critical section of that lock is in flight: moving a lock while a request for it
 * is queued on the old server would let two servers run its critical sections at once (they
 * would still exclude each other through the mutex itself, but in no defined order).
 * The same mapping can be given by name in RCL_LOCK_SERVERS.
 *
 * Returns 0; EINVAL when server is out of range; ENOMEM when 2048 locks are already assigned
 * (nothing is changed on error).
 */
RCL_API int rcl_lock_assign(pthread_mutex_t *lock, int server);

/** rcl_lock_server - the server number *lock maps to (explicit assignment, else hash). */
RCL_API int rcl_lock_server(const pthread_mutex_t *lock);

/** rcl_server_count - number of servers of this process (starts the runtime if needed). */
RCL_API int rcl_server_count(void);

/** The runtime's mode, from RCL_MODE. */
enum rcl_mode {
    RCL_MODE_DELEGATE = 0, /**< critical sections run on servers */
    RCL_MODE_LOCAL = 1,    /**< critical sections run in the caller under the plain mutex */
    RCL_MODE_ADAPTIVE = 2, /**< per lock, whichever of the two the runtime measures cheaper
                                (default) */
};

/** rcl_mode - the mode this process runs in (starts the runtime if needed). */
RCL_API enum rcl_mode rcl_mode(void);

/** rcl_on_server - nonzero when the calling thread is a server thread running a CS. */
RCL_API int rcl_on_server(void);

/*
 * The inline fast path of rcl_delegate (internal: nothing here is part of the interface).
 *
 * A call that the runtime would run in the caller anyway -- RCL_MODE=local, or an adaptive lock
 * whose current path is local and whose next timed call is not due -- runs here, in the caller's
 * own code, without entering librcl: fn is then a constant at the call site and the compiler
 * may inline the outlined section back into its caller, so a converted lock that runs locally
 * costs what the original lock/unlock pair cost. Everything else calls rcl_delegate.
 *
 * Who writes what (runtime/src/delegate.c, "The inline fast path"): rcl__all_local, once at
 * start-up, by the thread that starts the runtime (1 only in local mode with no profiler and no
 * RCL_STATS); rcl__fast_tls, only by its own thread, in rcl_delegate's adaptive path, which
 * grants, in the way a lock hashes to (8 ways: a thread that takes a few hot locks in turn keeps
 * each one's grant), rcl__left local calls of rcl__lock up to the lock's next timed call;
 * rcl__path points at the lock's current path in the runtime's table (low bits 0: local), which
 * only the runtime writes: a lock that switches to delegation is delegated from the next call
 * on. Define RCL_NO_INLINE before including this header to make every call enter librcl.
 */
#define RCL__FAST_WAYS 8
#define RCL__PATH_RUN  3 /* the bits of a lock's path word that say how calls run (0: local) */
struct rcl__fast_way {
    pthread_mutex_t *rcl__lock; /* the lock this thread may run locally, */
    unsigned rcl__left;         /* this many more calls, */
    const unsigned *rcl__path;  /* while *rcl__path & RCL__PATH_RUN is 0 (local, no exploration) */
};
struct rcl__fast {
    struct rcl__fast_way rcl__way[RCL__FAST_WAYS];
};
extern RCL_API __thread struct rcl__fast rcl__fast_tls __attribute__((tls_model("initial-exec")));
/* The way of a lock: a multiplicative hash of its address (mutexes in an array of structures
 * 64 bytes apart must not share a way). */
static __inline__ __attribute__((always_inline)) struct rcl__fast_way *
rcl__fast_way_of(const pthread_mutex_t *rcl__lock) {
    unsigned rcl__h = (unsigned)((__UINTPTR_TYPE__)rcl__lock >> 4) * 2654435761u;
    return &rcl__fast_tls.rcl__way[rcl__h >> 29];
}
extern RCL_API int rcl__all_local;

/* What rcl-rewrite puts before each outlined section: inlined where the fast path calls it, so
 * that a section run in the caller costs what it cost before the conversion (kvstore at one
 * thread, RCL_MODE=local: 0.93x of the original with the sections called, 0.97-1.00x inlined).
 * Define it empty (-DRCL_SECTION_INLINE=) if a compiler refuses to inline one (GCC reports that
 * as an error); RCL_NO_INLINE makes it empty too. */
#ifndef RCL_SECTION_INLINE
#ifdef RCL_NO_INLINE
#define RCL_SECTION_INLINE
#else
#define RCL_SECTION_INLINE __inline__ __attribute__((__always_inline__))
#endif
#endif

#ifndef RCL_NO_INLINE
/* (every name here starts with rcl__: a program's macros must not rename them) */
static __inline__ __attribute__((always_inline)) int
rcl__delegate_inline(pthread_mutex_t *rcl__lock, rcl_cs_fn rcl__fn, void *rcl__ctx,
                     size_t rcl__size, unsigned rcl__flags) {
    struct rcl__fast_way *rcl__f = rcl__fast_way_of(rcl__lock);
    int rcl__here = __atomic_load_n(&rcl__all_local, __ATOMIC_RELAXED);
    if (!rcl__here && rcl__f->rcl__lock == rcl__lock && rcl__f->rcl__left &&
        !(__atomic_load_n(rcl__f->rcl__path, __ATOMIC_RELAXED) & RCL__PATH_RUN)) {
        rcl__f->rcl__left--;
        rcl__here = 1;
    }
    if (rcl__here) {
        int rcl__r; /* declared first: programs built with -Wdeclaration-after-statement */
        pthread_mutex_lock(rcl__lock);
        rcl__r = rcl__fn(rcl__ctx);
        pthread_mutex_unlock(rcl__lock);
        return rcl__r;
    }
    /* (rcl__size and rcl__flags are constants at every call site: one call remains) */
    if (rcl__flags & RCL_AS_CALLER)
        return rcl_delegate_flags(rcl__lock, rcl__fn, rcl__ctx, rcl__size, rcl__flags);
    if (rcl__flags) return rcl_delegate_allocator(rcl__lock, rcl__fn, rcl__ctx, rcl__size);
    return rcl__size ? rcl_delegate_ctx(rcl__lock, rcl__fn, rcl__ctx, rcl__size)
                     : rcl_delegate(rcl__lock, rcl__fn, rcl__ctx);
}
#define rcl_delegate(lock, fn, ctx)                 rcl__delegate_inline(lock, fn, ctx, 0, 0)
#define rcl_delegate_ctx(lock, fn, ctx, size)       rcl__delegate_inline(lock, fn, ctx, size, 0)
#define rcl_delegate_allocator(lock, fn, ctx, size) rcl__delegate_inline(lock, fn, ctx, size, 2u)
#define rcl_delegate_flags(lock, fn, ctx, size, flags)                                             \
    rcl__delegate_inline(lock, fn, ctx, size, flags)
#endif

/*
 * rcl_delegate_timed_ran, rcl_delegate_trylock, rcl_delegate_lock_ran - what the delegating copy
 * of a timed lock wrapper (rcl-rewrite's --timedlock-fn: APR's apr_thread_mutex_timedlock) calls
 * in place of the wrapper's pthread_mutex_timedlock/clocklock, pthread_mutex_trylock and
 * pthread_mutex_lock: the same result as that call, with the section fn(ctx) run as the
 * critical section the lock starts when the lock is had -- *ran set to 1 and fn's result in
 * *result -- and *ran left alone otherwise. rcl_delegate_trylock runs fn in the caller, under
 * the mutex it got (a trylock waits for nobody: there is nothing to delegate).
 */
static __inline__ int rcl_delegate_timed_ran(pthread_mutex_t *rcl__lock, rcl_cs_fn rcl__fn,
                                             void *rcl__ctx, size_t rcl__size, clockid_t rcl__clock,
                                             const struct timespec *rcl__abstime, int *rcl__result,
                                             int *rcl__ran) {
    int rcl__err = rcl_delegate_timed(rcl__lock, rcl__fn, rcl__ctx, rcl__size, rcl__clock,
                                      rcl__abstime, rcl__result);
    if (!rcl__err) *rcl__ran = 1;
    return rcl__err;
}
static __inline__ int rcl_delegate_trylock(pthread_mutex_t *rcl__lock, rcl_cs_fn rcl__fn,
                                           void *rcl__ctx, size_t rcl__size, int *rcl__result,
                                           int *rcl__ran) {
    int rcl__err = pthread_mutex_trylock(rcl__lock);
    (void)rcl__size;
    if (rcl__err) return rcl__err;
    *rcl__result = rcl__fn(rcl__ctx);
    pthread_mutex_unlock(rcl__lock);
    *rcl__ran = 1;
    return 0;
}
static __inline__ int rcl_delegate_lock_ran(pthread_mutex_t *rcl__lock, rcl_cs_fn rcl__fn,
                                            void *rcl__ctx, size_t rcl__size, int *rcl__result,
                                            int *rcl__ran) {
    *rcl__result = rcl_delegate_ctx(rcl__lock, rcl__fn, rcl__ctx, rcl__size);
    *rcl__ran = 1;
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* RCL_RCL_H */
