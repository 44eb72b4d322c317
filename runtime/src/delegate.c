/*
 * delegate.c - the client side: start-up, lock-to-server mapping, rcl_delegate, modes,
 * nested delegation, thread exit and fork.
 *
 * Start-up is lazy: the first rcl_delegate (or any public call) reads the configuration,
 * places and starts the servers. rt_state is the only word the fast path reads to know the
 * runtime is up (acquire, pairs with the release store at the end of start-up).
 *
 * Fork: the child has none of the parent's server threads. A pthread_atfork child handler
 * bumps rt_generation and resets rt_state, so the child starts fresh servers on its first
 * delegated call; each thread's client record carries the generation it registered in and
 * re-registers when it differs. The parent's structures are left behind in the child (they
 * may be in use by nothing, so freeing them would be safe, but leaking them is simpler and
 * bounded by one set per fork).
 *
 * The program's allocator. A program may define malloc itself (jemalloc built in), and
 * rcl-rewrite converts its sections. The runtime's own code allocates (start-up: hwloc, the
 * servers, glibc's TLS of each new thread; a server thread's start; pthread_atfork; RCL_STATS
 * at exit), and such an allocation reaches a converted section of that malloc. Three rules
 * keep that from entering the runtime again or deadlocking:
 *   - rcl_own_code (a per-thread depth, only its own thread touches it) is non-zero while this
 *     thread runs such runtime code, and for the blocking detector's whole life; a server
 *     thread outside any critical section (its start, the pool's growth) counts too. Every
 *     delegated call made then runs in the caller under its mutex (run_locally): what the
 *     unconverted program does, which mixed mode keeps exclusive with the servers.
 *   - The allocator's sections (rcl_delegate_allocator) never start the runtime: while it is
 *     not running they run in the caller. Starting from inside the allocator could allocate
 *     while this thread holds another of the allocator's locks (its initialisation lock), and
 *     the nested section would then wait for itself. rcl-rewrite starts the runtime from a
 *     constructor of the allocator's files instead (rcl_start), where no lock is held.
 *   - A client's registration does not allocate: its record and new mailbox chunks come from
 *     mmap, and the pthread key exists from start-up (so that pthread_setspecific, whose
 *     second-level arrays glibc allocates for later keys, has nothing to allocate). A thread's
 *     first section may run while it holds one of the allocator's locks.
 */
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct rcl_runtime rcl_rt;
RCL_TLS struct rcl_server *rcl_self_server;
RCL_TLS unsigned rcl_own_code;

static _Atomic int rt_state; /* 0 stopped, 2 running */
static pthread_mutex_t rt_init_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned rt_generation = 1;
static pthread_key_t client_key;
static pthread_once_t client_key_once = PTHREAD_ONCE_INIT;

/* ------------------------------------------------------------------ explicit assignments */

/* Open addressing, insert-only (a reassignment updates the value in place). Readers take no
 * lock: a key is published after its value (release/acquire). nassigned == 0 skips lookups. */
#define RCL_ASSIGN_SLOTS 4096
static pthread_mutex_t *_Atomic assign_key[RCL_ASSIGN_SLOTS];
static _Atomic int assign_server[RCL_ASSIGN_SLOTS];
static _Atomic int nassigned;
static pthread_mutex_t assign_lock = PTHREAD_MUTEX_INITIALIZER;

static int assigned_server(const pthread_mutex_t *lock) {
    if (!atomic_load_explicit(&nassigned, memory_order_acquire)) return -1;
    for (uint64_t h = rcl_hash_ptr(lock), i = 0; i < RCL_ASSIGN_SLOTS; i++) {
        size_t slot = (h + i) % RCL_ASSIGN_SLOTS;
        pthread_mutex_t *k = atomic_load_explicit(&assign_key[slot], memory_order_acquire);
        if (!k) return -1;
        if (k == lock) return atomic_load_explicit(&assign_server[slot], memory_order_relaxed);
    }
    return -1;
}

static inline int server_index(const pthread_mutex_t *lock) {
    if (rcl_rt.nservers == 1) return 0;
    int s = assigned_server(lock);
    return s >= 0 ? s : (int)((rcl_hash_ptr(lock) >> 32) % (uint64_t)rcl_rt.nservers);
}

static int assign(pthread_mutex_t *lock, int server) {
    if (!lock || server < 0 || server >= rcl_rt.nservers) return EINVAL;
    int ret = ENOMEM;
    pthread_mutex_lock(&assign_lock);
    for (uint64_t h = rcl_hash_ptr(lock), i = 0; i < RCL_ASSIGN_SLOTS; i++) {
        size_t slot = (h + i) % RCL_ASSIGN_SLOTS;
        pthread_mutex_t *k = atomic_load_explicit(&assign_key[slot], memory_order_relaxed);
        if (k == lock) {
            atomic_store_explicit(&assign_server[slot], server, memory_order_relaxed);
            ret = 0;
            break;
        }
        if (!k) {
            if (atomic_load_explicit(&nassigned, memory_order_relaxed) >= RCL_ASSIGN_SLOTS / 2)
                break; /* keep probes short: the table is for a few hot locks */
            atomic_store_explicit(&assign_server[slot], server, memory_order_relaxed);
            atomic_store_explicit(&assign_key[slot], lock, memory_order_release);
            atomic_fetch_add_explicit(&nassigned, 1, memory_order_release);
            ret = 0;
            break;
        }
    }
    pthread_mutex_unlock(&assign_lock);
    return ret;
}

int rcl_lock_assign(pthread_mutex_t *lock, int server) {
    rcl_runtime_ensure();
    return assign(lock, server);
}

int rcl_lock_server(const pthread_mutex_t *lock) {
    rcl_runtime_ensure();
    return server_index(lock);
}

/* RCL_LOCK_SERVERS="cache_lock=0,stats_lock=1": names of global mutexes, found with dlsym. */
static void assign_by_name(const char *spec) {
    char buf[4096];
    if (strlen(spec) >= sizeof buf) {
        rcl_warn("RCL_LOCK_SERVERS: longer than %zu characters; ignored", sizeof buf - 1);
        return;
    }
    strcpy(buf, spec);
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '='), *end;
        long server = eq ? strtol(eq + 1, &end, 10) : -1;
        if (!eq || eq == item || !eq[1] || *end || server < 0 || server >= rcl_rt.nservers) {
            rcl_warn("RCL_LOCK_SERVERS: '%s': expected name=server with server from 0 to %d; "
                     "ignored",
                     item, rcl_rt.nservers - 1);
            continue;
        }
        *eq = '\0';
        pthread_mutex_t *lock = dlsym(RTLD_DEFAULT, item);
        if (!lock) {
            rcl_warn("RCL_LOCK_SERVERS: no global mutex named '%s' in the dynamic symbol table "
                     "(link the program with -rdynamic, or call rcl_lock_assign); ignored",
                     item);
            continue;
        }
        if (assign(lock, (int)server) != 0)
            rcl_warn("RCL_LOCK_SERVERS: too many assigned locks; '%s' ignored", item);
    }
}

/* ------------------------------------------------------------------ clients */

struct rcl_client {
    unsigned generation;
    int nservers;
    struct rcl_mailbox *mbox[];
};

static RCL_TLS struct rcl_client *tls_client;
static RCL_TLS bool tls_forking; /* this thread is in fork(), between prepare and parent/child */

/* A client record's bytes, whole pages: it comes from mmap ("The program's allocator"). */
static size_t client_bytes(int nservers) {
    size_t page = 4096,
           n = sizeof(struct rcl_client) + sizeof(struct rcl_mailbox *) * (size_t)nservers;
    return (n + page - 1) / page * page;
}

/* A timed request this thread withdrew stays in its mailbox until the server drops it (pass.c,
 * "Timed requests"): rare, and then a new request waits for that before it writes anything of
 * the mailbox (the claim word too). */
static inline void await_dropped(struct rcl_server *s, struct rcl_mailbox *mb) {
    if (__builtin_expect(atomic_load_explicit(&mb->fn, memory_order_acquire) != NULL, 0))
        rcl_client_wait(s, mb);
}

static void client_exit(void *arg) {
    struct rcl_client *c = arg;
    if (c->generation == rt_generation)
        for (int i = 0; i < c->nservers; i++)
            if (c->mbox[i]) { /* (dropped before the slot changes hands) */
                await_dropped(&rcl_rt.servers[i], c->mbox[i]);
                rcl_mailbox_free(c->mbox[i]);
            }
    if (tls_client == c) tls_client = NULL; /* a later destructor that delegates registers again */
    munmap(c, client_bytes(c->nservers));
}

static void make_client_key(void) {
    if (pthread_key_create(&client_key, client_exit) != 0) rcl_die("pthread_key_create failed");
}

static struct rcl_client *client_register(void) {
    struct rcl_client *c = mmap(NULL, client_bytes(rcl_rt.nservers), PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (c == MAP_FAILED) rcl_die("out of memory registering a client thread");
    c->generation = rt_generation; /* (the rest is zero: fresh anonymous pages) */
    c->nservers = rcl_rt.nservers;
    /* (client_key exists: a client registers only once the runtime started, runtime_start) */
    pthread_setspecific(client_key, c); /* an old record (pre-fork) is simply dropped */
    tls_client = c;
    if (!rcl_self_server) rcl_placement_client_register(&rcl_rt.pl);
    return c;
}

static __attribute__((noinline)) struct rcl_mailbox *client_mailbox_slow(struct rcl_server *s) {
    rcl_own_code++;
    struct rcl_client *c = tls_client;
    if (!c || c->generation != rt_generation) c = client_register();
    struct rcl_mailbox *mb = c->mbox[s->index];
    if (!mb) mb = c->mbox[s->index] = rcl_mailbox_alloc(s);
    rcl_own_code--;
    return mb;
}

static inline struct rcl_mailbox *client_mailbox(struct rcl_server *s) {
    struct rcl_client *c = tls_client;
    if (__builtin_expect(!c || c->generation != rt_generation || !c->mbox[s->index], 0))
        return client_mailbox_slow(s);
    return c->mbox[s->index];
}

/* What a request the server ran hands back: the context it wrote, its time (profiling), its
 * errno, and its result. */
static inline int ran_answer(struct rcl_mailbox *mb, void *ctx, uint64_t *cs_ns) {
    if (mb->ctx_size & RCL_CTX_SIZE) /* what the section wrote */
        memcpy(ctx, mb->ctx.bytes, mb->ctx_size & RCL_CTX_SIZE);
    if (cs_ns) *cs_ns = rcl_slow(mb)->cs_ns;
    errno = mb->err;
    return mb->ret;
}

/* size: the context's, to copy into the request line (pass.c, "Contexts in the request line");
 * 0 or more than RCL_CTX_INLINE_MAX: by pointer. bits: RCL_CTX_AS_CALLER, RCL_CTX_TIMED. */
static inline void post(struct rcl_server *s, struct rcl_mailbox *mb, pthread_mutex_t *lock,
                        rcl_cs_fn fn, void *ctx, size_t size, int err, unsigned bits) {
    __atomic_store_n(&mb->lock, lock, __ATOMIC_RELAXED); /* read early by next_wants (pass.c) */
    if (size && size <= RCL_CTX_INLINE_MAX) {
        memcpy(mb->ctx.bytes, ctx, size);
        mb->ctx_size = (uint16_t)(size | bits);
    } else {
        mb->ctx.ptr = ctx;
        mb->ctx_size = (uint16_t)bits;
    }
    mb->err = err; /* the section sees the caller's errno (pass.c copies it back) */
    atomic_store_explicit(&mb->fn, fn, memory_order_release); /* pairs: scan() acquire */
    rcl_server_kick_posted(s);
}

/* Run a request the server handed back (pass.c's try_take) the way the original program ran
 * it: in the caller, under the mutex. */
static int run_locally(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx) {
    pthread_mutex_lock(lock);
    int r = fn(ctx);
    pthread_mutex_unlock(lock);
    return r;
}

/* A server thread is about to wait on server `to`: refuse to close a cycle. */
static void nested_wait_begin(struct rcl_server *self, struct rcl_server *to) {
    atomic_store_explicit(&self->waiting_on, to, memory_order_seq_cst);
    struct rcl_server *p = to;
    for (int steps = 0; p && steps <= rcl_rt.nservers; steps++) {
        if (p == self)
            rcl_die("deadlock: server %d waits on server %d, which (through nested delegation) "
                    "waits on server %d. Nested delegation must not form a cycle between "
                    "servers: assign these locks to one server (rcl_lock_assign or "
                    "RCL_LOCK_SERVERS) or restructure the nesting",
                    self->index, to->index, self->index);
        p = atomic_load_explicit(&p->waiting_on, memory_order_seq_cst);
    }
}

/* Run fn(ctx) on lock's server s (or inline, nested on the same server). flags: RCL_AS_CALLER
 * (caller.c), which the caller checked the runtime can do. */
static int on_server(struct rcl_server *s, pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx,
                     size_t size, uint64_t *cs_ns, unsigned flags) {
    /* A fork is being prepared and the servers are paused: a pthread_atfork prepare handler
     * that runs after ours (registered before the runtime started) may still take a converted
     * lock; the forking thread runs its section itself (mixed mode) instead of waiting for a
     * paused server. Other threads wait: a section they ran locally could hold the mutex at
     * the fork, which is what pausing the servers avoids. */
    if (__builtin_expect(atomic_load_explicit(&s->fork_hold, memory_order_relaxed), 0) &&
        tls_forking)
        return run_locally(lock, fn, ctx);
    struct rcl_server *self = rcl_self_server;
    if (self) {
        if (self == s) return rcl_pass_run_nested(rcl_self_worker, lock, fn, ctx);
        nested_wait_begin(self, s);
    }
    /* The caller's errno, before a first call's registration (its library calls) or a wait's
     * futex calls change it (test/runtime/errno_every_answer.c: ENOENT from the registration). */
    int err = errno;
    struct rcl_mailbox *mb = client_mailbox(s);
    await_dropped(s, mb);
    struct rcl_caller_save save;
    unsigned as_caller = flags & RCL_AS_CALLER ? RCL_CTX_AS_CALLER : 0;
    if (as_caller) rcl_caller_enter(&save);
    post(s, mb, lock, fn, ctx, size, err, as_caller);
    rcl_client_wait(s, mb);
    if (as_caller) rcl_caller_leave(&save);
    if (self) atomic_store_explicit(&self->waiting_on, NULL, memory_order_release);
    if (__builtin_expect(mb->status != RCL_ANSWER_RAN, 0)) {
        errno = err; /* handed back: the section runs here, with the caller's errno */
        return run_locally(lock, fn, ctx);
    }
    return ran_answer(mb, ctx, cs_ns);
}

/* ------------------------------------------------------------------ timed calls */

/* rcl_delegate_timed in the caller: the timed lock, then the section, as the original ran. */
static int run_locally_timed(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx, clockid_t clock,
                             const struct timespec *abstime, int *result) {
    int err = rcl_timed_lock(lock, clock, abstime);
    if (err) return err;
    *result = fn(ctx);
    pthread_mutex_unlock(lock);
    return 0;
}

/* A timed call on lock's server s (pass.c, "Timed requests"): posted with its deadline; at the
 * deadline the client withdraws it unless a server thread has claimed it. */
static int on_server_timed(struct rcl_server *s, pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx,
                           size_t size, clockid_t clock, const struct timespec *abstime,
                           int *result, uint64_t *cs_ns) {
    if (__builtin_expect(atomic_load_explicit(&s->fork_hold, memory_order_relaxed), 0) &&
        tls_forking)
        return run_locally_timed(lock, fn, ctx, clock, abstime, result);
    struct rcl_server *self = rcl_self_server;
    if (self) {
        if (self == s)
            return rcl_pass_run_nested_timed(rcl_self_worker, lock, fn, ctx, clock, abstime,
                                             result);
        nested_wait_begin(self, s);
    }
    int err = errno;
    struct rcl_mailbox *mb = client_mailbox(s);
    struct rcl_mailbox_slow *slow = rcl_slow(mb);
    atomic_fetch_add_explicit(&s->timed, 1, memory_order_relaxed);
    await_dropped(s, mb);
    atomic_store_explicit(&slow->claim, RCL_CLAIM_POSTED, memory_order_relaxed);
    slow->clock = clock;
    slow->deadline = *abstime; /* (published with fn, by post's release store) */
    post(s, mb, lock, fn, ctx, size, err, RCL_CTX_TIMED);
    struct timespec next;
    while (!rcl_client_wait_until(s, mb, clock, abstime)) {
        uint32_t st = RCL_CLAIM_POSTED;
        if (atomic_compare_exchange_strong_explicit(&slow->claim, &st, RCL_CLAIM_WITHDRAWN,
                                                    memory_order_acq_rel, memory_order_acquire)) {
            /* Withdrawn: the server drops it unread. A timed lock's last attempt at its
             * deadline: the mutex may be free now (mixed mode keeps this exclusive). */
            if (self) atomic_store_explicit(&self->waiting_on, NULL, memory_order_release);
            atomic_fetch_add_explicit(&s->timed_out, 1, memory_order_relaxed);
            errno = err;
            if (pthread_mutex_trylock(lock) != 0) return ETIMEDOUT;
            *result = fn(ctx);
            pthread_mutex_unlock(lock);
            return 0;
        }
        /* Claimed: the server runs it, or waits for its mutex until this very deadline, or
         * gives it back; it may also unclaim it (its mutex is held locally). Wait for that a
         * millisecond at a time. */
        clock_gettime(CLOCK_MONOTONIC, &next);
        next.tv_nsec += 1000000;
        if (next.tv_nsec >= 1000000000) next.tv_sec++, next.tv_nsec -= 1000000000;
        if (rcl_client_wait_until(s, mb, CLOCK_MONOTONIC, &next)) break;
        clock = CLOCK_MONOTONIC, abstime = &next; /* (the loop's next wait: until then) */
    }
    if (self) atomic_store_explicit(&self->waiting_on, NULL, memory_order_release);
    switch (mb->status) {
    case RCL_ANSWER_RAN:
        break;
    case RCL_ANSWER_TIMEDOUT:
        atomic_fetch_add_explicit(&s->timed_out, 1, memory_order_relaxed);
        errno = err;
        return mb->ret;
    default: /* handed back: the timed lock here, as the original */
        errno = err;
        return run_locally_timed(lock, fn, ctx, slow->clock, &slow->deadline, result);
    }
    *result = ran_answer(mb, ctx, cs_ns);
    return 0;
}

static int delegate_timed(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx, size_t size,
                          clockid_t clock, const struct timespec *abstime, int *result,
                          uint64_t *cs_ns, const void *site) {
    if (rcl_rt.cfg.mode == RCL_MODE_LOCAL)
        return run_locally_timed(lock, fn, ctx, clock, abstime, result);
    struct rcl_server *s = &rcl_rt.servers[server_index(lock)];
    if (rcl_rt.cfg.mode != RCL_MODE_ADAPTIVE)
        return on_server_timed(s, lock, fn, ctx, size, clock, abstime, result, cs_ns);
    /* Adaptive: the lock's current path; a call that ran is one of its samples. */
    struct rcl_adaptive_call call;
    bool sample;
    enum rcl_path path = rcl_adaptive_begin(lock, fn, ctx, &call, &sample);
    call.site = site;
    if (call.e && rcl_rt.cfg.stats != RCL_STATS_OFF) fn = rcl_adaptive_run, ctx = &call, size = 0;
    uint64_t t0 = sample ? rcl_ticks() : 0;
    int err = path == RCL_PATH_LOCAL
                  ? run_locally_timed(lock, fn, ctx, clock, abstime, result)
                  : on_server_timed(s, lock, fn, ctx, size, clock, abstime, result, cs_ns);
    if (sample && !err) {
        int e = errno;
        rcl_adaptive_end(&call, s, rcl_ticks() - t0);
        errno = e;
    }
    return err;
}

/* RCL_MODE=adaptive: the lock's current path (adaptive.c), one call in a few timed. */
static int adaptive(struct rcl_server *s, pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx,
                    size_t size, uint64_t *cs_ns, const void *site, unsigned flags) {
    struct rcl_adaptive_call call;
    bool sample;
    enum rcl_path path = rcl_adaptive_begin(lock, fn, ctx, &call, &sample);
    call.site = site; /* RCL_STATS names a lock by its first call site (names.c) */
    /* RCL_STATS counts the calls under the mutex (through a trampoline, and on a line of the
     * lock's entry that would otherwise move between the callers at every call): only then. */
    if (call.e && rcl_rt.cfg.stats != RCL_STATS_OFF) /* (call holds ctx: by pointer) */
        fn = rcl_adaptive_run, ctx = &call, size = 0;
    uint64_t t0 = sample ? rcl_ticks() : 0;
    int r = path == RCL_PATH_LOCAL ? run_locally(lock, fn, ctx)
                                   : on_server(s, lock, fn, ctx, size, cs_ns, flags);
    if (sample) {
        int err = errno;
        rcl_adaptive_end(&call, s, rcl_ticks() - t0);
        errno = err;
    }
    return r;
}

static int delegate(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx, size_t size, uint64_t *cs_ns,
                    const void *site, unsigned flags) {
    if (rcl_rt.cfg.mode == RCL_MODE_LOCAL) return run_locally(lock, fn, ctx);
    struct rcl_server *s = &rcl_rt.servers[server_index(lock)];
    if (__builtin_expect((flags & RCL_AS_CALLER) && !rcl_rt.as_caller, 0)) {
        /* This machine or build cannot run it as its caller (caller.c): in place. */
        atomic_fetch_add_explicit(&s->caller_here, 1, memory_order_relaxed);
        return run_locally(lock, fn, ctx);
    }
    if (rcl_rt.cfg.mode == RCL_MODE_ADAPTIVE)
        return adaptive(s, lock, fn, ctx, size, cs_ns, site, flags);
    return on_server(s, lock, fn, ctx, size, cs_ns, flags);
}

/* The inline fast path (rcl.h's rcl__delegate_inline). A call that would run in the caller
 * anyway runs in the caller's code without entering the library, so that the compiler sees fn
 * and may inline the section back where it came from: in local mode, and on an adaptive lock
 * whose path is local between two timed calls. Measured (kvstore, 1 thread, 2-vCPU VM): the
 * converted program in local mode ran at 0.94x the original through this function, adaptive
 * at 0.89x.
 * - rcl__all_local: written once, before rt_state says "started" (release), by the starting
 *   thread: 1 when every call runs locally and nothing wants to see the calls (local mode, no
 *   profiler hooks, no RCL_STATS). The mode never changes afterwards (a forked child inherits
 *   it), so a relaxed read of 1 is always right, and a read of 0 only means "come in here".
 * - rcl__fast_tls: its own thread's, 8 ways; a lock uses the way its address hashes to, so a
 *   thread that takes a few hot locks in turn keeps each one's grant (2 locks in turn, tiny
 *   sections: 45.6 ns a call with one way; 3 or 4 locks of an array: 35-40 ns with 4 ways,
 *   whose hash put two of them in one way; 10-11 ns with 8, as local mode's 7.5-11).
 *   rcl_adaptive_begin grants rcl__left local calls of rcl__lock (the calls before the
 *   thread's next timed one, so sampling keeps its cadence) and points rcl__path at the lock's
 *   path word: a switch or an exploration that the table's closer writes there sends the very
 *   next call in here. Granted only when nothing must see each call (rcl_rt.fast_ok). Mixed
 *   mode makes a local call correct whatever the path is at that instant; the check only keeps
 *   the decision's measurements and switches as prompt as before.
 * - RCL_NO_INLINE: callers compiled with it always come in here. */
RCL_API int rcl__all_local;
RCL_API RCL_TLS struct rcl__fast rcl__fast_tls;

/* Whether this thread runs librcl's own code, whose delegated calls (a section of the
 * program's own malloc, reached from there) run in the caller ("The program's allocator"): a
 * region marked by rcl_own_code, or a server thread outside any critical section. */
static inline bool own_code(void) {
    if (__builtin_expect(rcl_own_code != 0, 0)) return true;
    if (__builtin_expect(rcl_self_server != NULL, 0))
        return !rcl_self_worker || rcl_self_worker->nactive == 0;
    return false;
}

/* rcl_delegate and rcl_delegate_ctx; site: their caller, for the profiler and RCL_STATS.
 * Inside a section that a server runs as its caller (caller.c), every nested one runs in place
 * on that server thread: librcl's thread-local state there is the client's. */
static inline __attribute__((always_inline)) int entry(pthread_mutex_t *lock, rcl_cs_fn fn,
                                                       void *ctx, size_t size, const void *site,
                                                       unsigned flags) {
    if (__builtin_expect(own_code() || rcl_as_caller, 0)) return run_locally(lock, fn, ctx);
    rcl_runtime_ensure();
    if (__builtin_expect(rcl_rt.prof_begin != NULL, 0)) {
        uint64_t cs_ns = 0;
        rcl_rt.prof_begin(lock, site);
        int r = delegate(lock, fn, ctx, size, &cs_ns, site, flags);
        rcl_rt.prof_end(lock, site, cs_ns);
        return r;
    }
    return delegate(lock, fn, ctx, size, NULL, site, flags);
}

__attribute__((noinline)) int(rcl_delegate)(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx) {
    return entry(lock, fn, ctx, 0, __builtin_return_address(0), 0);
}

__attribute__((noinline)) int(rcl_delegate_ctx)(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx,
                                                size_t size) {
    return entry(lock, fn, ctx, size, __builtin_return_address(0), 0);
}

/* Never starts the runtime ("The program's allocator"). */
__attribute__((noinline)) int(rcl_delegate_allocator)(pthread_mutex_t *lock, rcl_cs_fn fn,
                                                      void *ctx, size_t size) {
    if (atomic_load_explicit(&rt_state, memory_order_acquire) != 2)
        return run_locally(lock, fn, ctx);
    return entry(lock, fn, ctx, size, __builtin_return_address(0), 0);
}

__attribute__((noinline)) int(rcl_delegate_flags)(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx,
                                                  size_t size, unsigned flags) {
    if ((flags & RCL_ALLOCATOR) && atomic_load_explicit(&rt_state, memory_order_acquire) != 2)
        return run_locally(lock, fn, ctx);
    return entry(lock, fn, ctx, size, __builtin_return_address(0), flags & RCL_AS_CALLER);
}

/* A deadline a timed lock refuses (EINVAL, when it would have to wait) goes to the pthread
 * function itself, in the caller, so that the error is exactly its own. */
__attribute__((noinline)) int rcl_delegate_timed(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx,
                                                 size_t size, clockid_t clock,
                                                 const struct timespec *abstime, int *result) {
    const void *site = __builtin_return_address(0);
    if (__builtin_expect(own_code() || rcl_as_caller, 0) || !abstime || abstime->tv_nsec < 0 ||
        abstime->tv_nsec >= 1000000000)
        return run_locally_timed(lock, fn, ctx, clock, abstime, result);
    rcl_runtime_ensure();
    if (__builtin_expect(rcl_rt.prof_begin != NULL, 0)) {
        uint64_t cs_ns = 0;
        rcl_rt.prof_begin(lock, site);
        int err = delegate_timed(lock, fn, ctx, size, clock, abstime, result, &cs_ns, site);
        rcl_rt.prof_end(lock, site, cs_ns);
        return err;
    }
    return delegate_timed(lock, fn, ctx, size, clock, abstime, result, NULL, site);
}

/* ------------------------------------------------------------------ start-up, fork */

/* Prepare: no server thread may hold a program's mutex across fork() (a child whose first lock
 * finds it held by a thread that does not exist there hangs). Each server's poller pauses
 * between two passes, holding no mutex (server.c). rt_init_lock is held too, so no runtime
 * starts meanwhile. A servicing thread blocked inside a critical section keeps its mutex, as a
 * thread of the original program blocked inside it would. */
static void before_fork(void) {
    pthread_mutex_lock(&rt_init_lock);
    tls_forking = true;
    if (atomic_load_explicit(&rt_state, memory_order_relaxed) != 2 ||
        rcl_rt.cfg.mode == RCL_MODE_LOCAL)
        return;
    for (int i = 0; i < rcl_rt.nservers; i++)
        if (&rcl_rt.servers[i] != rcl_self_server) /* a section that forks: see runtime.md */
            rcl_server_fork_prepare(&rcl_rt.servers[i]);
}

static void after_fork_parent(void) {
    tls_forking = false;
    if (atomic_load_explicit(&rt_state, memory_order_relaxed) == 2 &&
        rcl_rt.cfg.mode != RCL_MODE_LOCAL)
        for (int i = 0; i < rcl_rt.nservers; i++)
            if (&rcl_rt.servers[i] != rcl_self_server) rcl_server_fork_parent(&rcl_rt.servers[i]);
    pthread_mutex_unlock(&rt_init_lock);
}

static void after_fork_child(void) {
    tls_forking = false;
    /* first: the runtime's restart reads the process's CPUs (rcl_placement_init) */
    rcl_adaptive_after_fork_child();
    rcl_pool_after_fork();
    /* Only the forking thread exists: no server, and rt_init_lock may have been held. */
    pthread_mutex_init(&rt_init_lock, NULL);
    rt_generation++;
    rcl_self_server = NULL;
    rcl_self_worker = NULL;
    tls_client = NULL;
    rcl_caller_tid = 0; /* (another thread id) */
    atomic_store_explicit(&rt_state, 0, memory_order_relaxed);
}

static void runtime_start(void) {
    /* The key before any registration: a low key number, for which pthread_setspecific has
     * nothing to allocate ("The program's allocator"). */
    pthread_once(&client_key_once, make_client_key);
    static bool configured;
    if (!configured) {
        configured = true;
        rcl_config_load(&rcl_rt.cfg);
        rcl_placement_init(&rcl_rt.pl, &rcl_rt.cfg);
        rcl_rt.prof_begin = (rcl_prof_cs_begin_fn)dlsym(RTLD_DEFAULT, RCL_PROF_CS_BEGIN_SYMBOL);
        rcl_rt.prof_end = (rcl_prof_cs_end_fn)dlsym(RTLD_DEFAULT, RCL_PROF_CS_END_SYMBOL);
        if (!rcl_rt.prof_begin || !rcl_rt.prof_end)
            rcl_rt.prof_begin = NULL, rcl_rt.prof_end = NULL;
        rcl_rt.prof_server_thread =
            (rcl_prof_server_thread_fn)dlsym(RTLD_DEFAULT, RCL_PROF_SERVER_THREAD_SYMBOL);
        rcl_stats_register();
        rcl_rt.as_caller = !rcl_rt.cfg.no_as_caller && rcl_caller_available();
        rcl_rt.fast_ok =
            !rcl_rt.prof_begin && rcl_rt.cfg.stats == RCL_STATS_OFF && !rcl_rt.cfg.adaptive_flip;
        __atomic_store_n(&rcl__all_local, rcl_rt.fast_ok && rcl_rt.cfg.mode == RCL_MODE_LOCAL,
                         __ATOMIC_RELAXED);
    }
    /* (after a fork the configuration and placement are inherited as they were) */
    rcl_rt.nservers = rcl_rt.pl.nservers;
    size_t bytes = sizeof(struct rcl_server) * (size_t)rcl_rt.nservers;
    if (posix_memalign((void **)&rcl_rt.servers, RCL_CACHE_LINE, bytes) != 0)
        rcl_die("out of memory starting %d servers", rcl_rt.nservers);
    for (int i = 0; i < rcl_rt.nservers; i++)
        rcl_server_init(&rcl_rt.servers[i], i, rcl_rt.pl.server_cpus[i]);
    if (rcl_rt.cfg.mode != RCL_MODE_LOCAL)
        for (int i = 0; i < rcl_rt.nservers; i++)
            rcl_server_start(&rcl_rt.servers[i]);
    if (rcl_rt.cfg.lock_servers && rt_generation == 1) assign_by_name(rcl_rt.cfg.lock_servers);
}

static pthread_once_t fork_handlers = PTHREAD_ONCE_INIT;
static void register_fork_handlers(void) {
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* The fork handlers exist before anyone holds rt_init_lock: a fork while another thread starts
 * the runtime waits for it (before_fork takes the lock) instead of leaving the child a lock held
 * by a thread it does not have. They are registered when librcl is loaded, before main (or at
 * dlopen, before any thread can have entered librcl), not at the first call: glibc (>= 2.34)
 * drops its handler list's lock around each prepare handler, and a handler registered during
 * a fork is left out of it, prepare and child alike. A thread that started the runtime while
 * another library's prepare handler ran (AddressSanitizer's, the program's) registered them
 * then, took rt_init_lock unseen, and the child hung at its first section
 * (test/runtime/fork_during_start.c). Registered first, the runtime's child handler also runs
 * before the other libraries' child handlers, which may make sections of their own; and its
 * prepare handler runs after theirs, whose sections the servers still serve. */
__attribute__((constructor)) static void register_fork_handlers_at_load(void) {
    int err = errno;
    rcl_own_code++; /* pthread_atfork allocates */
    pthread_once(&fork_handlers, register_fork_handlers);
    rcl_own_code--;
    errno = err;
}

void rcl_runtime_ensure(void) {
    if (__builtin_expect(atomic_load_explicit(&rt_state, memory_order_acquire) == 2, 1)) return;
    int err = errno; /* start-up's library calls must not change the caller's */
    rcl_own_code++;  /* (start-up allocates) */
    /* (registered at load, see above; but a program's constructor that librcl's has not
     * preceded -- rcl_start in an allocator's files, in a static link -- may get here first) */
    pthread_once(&fork_handlers, register_fork_handlers);
    pthread_mutex_lock(&rt_init_lock);
    if (atomic_load_explicit(&rt_state, memory_order_relaxed) != 2) {
        runtime_start();
        atomic_store_explicit(&rt_state, 2, memory_order_release); /* pairs: the load above */
    }
    pthread_mutex_unlock(&rt_init_lock);
    rcl_own_code--;
    errno = err;
}

void rcl_start(void) {
    rcl_runtime_ensure();
}

int rcl_server_count(void) {
    rcl_runtime_ensure();
    return rcl_rt.nservers;
}

enum rcl_mode rcl_mode(void) {
    rcl_runtime_ensure();
    return rcl_rt.cfg.mode;
}

int rcl_on_server(void) {
    return rcl_self_server != NULL || rcl_as_caller;
}

/* ------------------------------------------------------------------ benchmark interface */

struct rcl_server *rcl__server(int index) {
    rcl_runtime_ensure();
    return index >= 0 && index < rcl_rt.nservers ? &rcl_rt.servers[index] : NULL;
}

struct rcl_mailbox *rcl__mailbox_open(int server) {
    struct rcl_server *s = rcl__server(server);
    return s ? rcl_mailbox_alloc(s) : NULL;
}

/* lock must map to the server the mailbox was opened on. */
void rcl__mailbox_post(struct rcl_mailbox *mb, pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx) {
    post(&rcl_rt.servers[server_index(lock)], mb, lock, fn, ctx, 0, errno, 0);
}

bool rcl__mailbox_answered(struct rcl_mailbox *mb) {
    return atomic_load_explicit(&mb->fn, memory_order_acquire) == NULL;
}

void rcl__mailbox_close(struct rcl_mailbox *mb) {
    rcl_mailbox_free(mb);
}

unsigned rcl__server_slots(struct rcl_server *s) {
    return atomic_load_explicit(&s->nslots, memory_order_relaxed);
}
