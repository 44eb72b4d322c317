// A lock wrapper with a fast path (jemalloc's malloc_mutex_lock): a trylock through an inline
// function, on failure a slow path that spins and counts, then statistics under the lock with
// the caller's token, and an assertion before it. The wrapper is read along the path where the
// trylock succeeds at once (which it may whenever the mutex is free): the assertion runs on the
// calling thread, the statistics first thing in the outlined section, on the server, and the
// slow path (contention only) never runs for a delegated section. Each lock and unlock of the
// section delegates on `&(&M)->lock`, reached through the inline trylock's parameter.
// RUN: %rcl-rewrite --all --lock-fn=mutex_lock --unlock-fn=mutex_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

struct prof { long n_lock_ops, n_spin_acquired, n_wait, n_owner_switches; void *prev_owner; };
struct mutex {
    union {
        struct {
            struct prof prof;
            pthread_mutex_t lock;
            bool locked;
        };
        long witness_rank;
    };
};

#define MUTEX_TRYLOCK(m) (pthread_mutex_trylock(&(m)->lock) != 0)
#define MUTEX_UNLOCK(m) pthread_mutex_unlock(&(m)->lock)
#define isthreaded true

static inline bool mutex_trylock_final(struct mutex *m) { return MUTEX_TRYLOCK(m); }

/* Contention only: spin a little, then block. */
static void mutex_lock_slow(struct mutex *m)
{
    for (int i = 0; i < 100; i++)
        if (!__atomic_load_n(&m->locked, __ATOMIC_RELAXED) && !mutex_trylock_final(m)) {
            m->prof.n_spin_acquired++;
            return;
        }
    pthread_mutex_lock(&m->lock);
    m->prof.n_wait++;
}

static inline void owner_stats_update(void *tsdn, struct mutex *m)
{
    m->prof.n_lock_ops++;
    if (m->prof.prev_owner != tsdn) {
        m->prof.prev_owner = tsdn;
        m->prof.n_owner_switches++;
    }
}

static inline void witness_assert_not_owner(void *tsdn, struct mutex *m)
{
    (void)tsdn;
    (void)m;
}

static inline void mutex_lock(void *tsdn, struct mutex *mutex)
{
    witness_assert_not_owner(tsdn, mutex);
    if (isthreaded) {
        if (mutex_trylock_final(mutex)) {
            mutex_lock_slow(mutex);
            __atomic_store_n(&mutex->locked, true, __ATOMIC_RELAXED);
        }
        owner_stats_update(tsdn, mutex);
    }
}

static inline void mutex_unlock(void *tsdn, struct mutex *mutex)
{
    __atomic_store_n(&mutex->locked, false, __ATOMIC_RELAXED);
    (void)tsdn;
    if (isthreaded) {
        MUTEX_UNLOCK(mutex);
    }
}

static struct mutex M = { { { { 0, 0, 0, 0, 0 }, PTHREAD_MUTEX_INITIALIZER, false } } };
static long total;

// The CHECK lines are written so that they do not match themselves (the output keeps them).
// CHECK: static void rcl_mutex_unlock_before_unlock{{[(]}}void *tsdn, struct mutex *mutex)
// CHECK: static void rcl_mutex_lock_before_lock{{[(]}}void *tsdn, struct mutex *mutex)
// CHECK-NOT: }
// CHECK: witness_assert_not_owner{{[(]}}tsdn, mutex);
// CHECK: static void rcl_mutex_lock_after_lock{{[(]}}void *tsdn, struct mutex *mutex)
// CHECK-NOT: }
// CHECK: owner_stats_update{{[(]}}tsdn, mutex);
// CHECK-NEXT: }
// CHECK-LABEL: static RCL_SECTION_INLINE int rcl_cs_add_1{{[(]}}void *rcl_arg)
// CHECK: rcl_mutex_lock_after_lock{{[(]}}rcl_ctx->rcl_lock_arg0, rcl_ctx->rcl_lock_arg1);
// CHECK: rcl_mutex_lock_before_lock{{[(]}}tsdn, &M);
// CHECK: rcl_delegate_ctx{{[(]}}&M.lock, rcl_cs_add_1, &rcl_ctx, sizeof rcl_ctx);
static void add(void *tsdn, long n)
{
    mutex_lock(tsdn, &M);
    total += n;
    mutex_unlock(tsdn, &M);
}

/* Arguments that call an accessor (`return R;`, R of its parameters only: jemalloc's
 * `tsd_tsdn(tsd)`) have no side effects; a call that counts has. */
static inline void *tsd_tsdn(void *tsd) { return (char *)tsd + 0; }
static long tokens;
static void *counted(void *tsd) { __atomic_fetch_add(&tokens, 1, __ATOMIC_RELAXED); return tsd; }

// CHECK: rcl_delegate_ctx{{[(]}}&M.lock, rcl_cs_add_through_accessor_1,
static void add_through_accessor(void *tsd, long n)
{
    mutex_lock(tsd_tsdn(tsd), &M);
    total += n;
    mutex_unlock(tsd_tsdn(tsd), &M);
}

static void add_counted(void *tsd, long n)
{
    mutex_lock(counted(tsd), &M);
    total += n;
    mutex_unlock(tsd, &M);
}
// ERR: :38:66: rcl: cannot convert critical section: pthread_mutex_trylock section
// ERR: :[[# @LINE-5]]:16: rcl: cannot convert critical section: the lock expression has side effects
// ERR: rcl: summary: 2 converted, 3 refused
// STATS: rcl: server {{[0-9]+}} {{.*}}: 16000 sections served

static void *worker(void *arg)
{
    int token;
    for (int i = 0; i < 4000; i++) {
        add(&token, (long)arg);
        add_through_accessor(&token, (long)arg);
        if (i % 2) add_counted(&token, 1);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("total=%ld lock_ops=%ld tokens=%ld\n", total, M.prof.n_lock_ops, tokens);
    return 0;
}
