// rcl.h's inline fast path: a call that runs in the caller anyway (RCL_MODE=local, an adaptive
// lock on its local path between two timed calls) does not enter librcl; every other call does
// (delegate mode, RCL_STATS, a profiler, RCL_NO_INLINE), and a lock whose path word says
// "delegate" is delegated from the very next call. Calls into the library are counted with the
// linker's --wrap; two locks taken in turn keep their grants. The sections run under the mutex and the counters stay exact with four
// threads on two locks in adaptive mode. The header compiles under a program's macros named
// like its internals.
// RUN: %cc %s -o %t %rcl_libs -Wl,--wrap=rcl_delegate
// RUN: %cc -DRCL_NO_INLINE %s -o %t.noinline %rcl_libs -Wl,--wrap=rcl_delegate
// RUN: env RCL_MODE=local %t | FileCheck %s --check-prefix=LOCAL
// RUN: env RCL_MODE=local RCL_STATS=1 %t 2>/dev/null | FileCheck %s --check-prefix=ALL
// RUN: env RCL_MODE=local %t.noinline | FileCheck %s --check-prefix=ALL
// RUN: %t | FileCheck %s --check-prefix=ALL
// RUN: env RCL_MODE=adaptive %t | FileCheck %s --check-prefix=ADAPTIVE
// RUN: env RCL_MODE=adaptive %t.noinline | FileCheck %s --check-prefix=ALL
// LOCAL: one thread: 1 of 100000 calls entered librcl
// LOCAL: two locks in turn: 0 of 100000 calls entered librcl
// LOCAL: counters exact
// ALL: one thread: 100000 of 100000 calls entered librcl
// ALL: two locks in turn: 100000 of 100000 calls entered librcl
// ALL: counters exact
// ADAPTIVE: one thread: at most 1 in 8 calls entered librcl
// ADAPTIVE: a path word set to delegate: the next call entered librcl and ran on the server
// ADAPTIVE: two locks in turn: at most 1 in 8 calls entered librcl
// ADAPTIVE: counters exact

/* A program's own macros, named like the header's locals and fields. */
#define lock   do_not_expand_lock
#define fn     do_not_expand_fn
#define ctx    do_not_expand_ctx
#define local  static
#define here   do_not_expand_here
#define left   do_not_expand_left
#define path   do_not_expand_path
#define f      do_not_expand_f
#define r      do_not_expand_r
#include <rcl/rcl.h>
#undef lock
#undef fn
#undef ctx
#undef local
#undef here
#undef left
#undef path
#undef f
#undef r

#include "Inputs/harness.h"
#include <string.h>

#define CALLS 100000
#define T     4
#define M     50000

static _Atomic long entered; /* calls that entered librcl's rcl_delegate */
int __real_rcl_delegate(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx);
int __wrap_rcl_delegate(pthread_mutex_t *lock, rcl_cs_fn fn, void *ctx) {
    entered++;
    return __real_rcl_delegate(lock, fn, ctx);
}

static pthread_mutex_t locks[2] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static long counters[2];
static int ran_on_server[2]; /* protected by locks[k], as counters[k] */

static int increment(void *arg) {
    int k = *(int *)arg;
    CHECK(pthread_mutex_trylock(&locks[k]) != 0); /* held, by the caller or by a server */
    counters[k]++;
    ran_on_server[k] = rcl_on_server();
    return 0;
}

static long pair_calls; /* protected by the pair's locks: one thread */
static int count_pair(void *arg) {
    (void)arg;
    pair_calls++;
    return 0;
}

static void *worker(void *arg) {
    long id = (long)arg;
    for (int i = 0; i < M; i++) {
        int k = (int)((i / 1000 + id) % 2); /* runs of 1000 calls on one lock, then the other */
        rcl_delegate(&locks[k], increment, &k);
    }
    return NULL;
}

int main(void) {
    int k = 0;
    for (int i = 0; i < CALLS; i++)
        rcl_delegate(&locks[0], increment, &k);
    long n = entered;
    if (rcl_mode() == RCL_MODE_ADAPTIVE && n <= CALLS / 8) {
        printf("one thread: at most 1 in 8 calls entered librcl\n");
        /* What a switch to delegation does to the path word: the next call comes in. */
        struct rcl__fast_way *w = rcl__fast_way_of(&locks[0]);
        CHECK(w->rcl__lock == &locks[0] && w->rcl__path);
        __atomic_store_n((unsigned *)w->rcl__path, 1u, __ATOMIC_RELAXED);
        long before = entered;
        rcl_delegate(&locks[0], increment, &k);
        CHECK(entered == before + 1 && ran_on_server[0]);
        printf("a path word set to delegate: the next call entered librcl and ran on the "
               "server\n");
    } else {
        printf("one thread: %ld of %d calls entered librcl\n", n, CALLS);
    }
    /* Two locks taken in turn (two of different ways: the way is a hash of the address). */
    static pthread_mutex_t pair[8];
    int a = 0, b = 1;
    for (int i = 0; i < 8; i++)
        pthread_mutex_init(&pair[i], NULL);
    while (b < 8 && rcl__fast_way_of(&pair[b]) == rcl__fast_way_of(&pair[a]))
        b++;
    CHECK(b < 8);
    long pair_before = entered;
    for (int i = 0; i < CALLS; i++)
        rcl_delegate(&pair[i % 2 ? b : a], count_pair, NULL);
    n = entered - pair_before;
    if (rcl_mode() == RCL_MODE_ADAPTIVE && n <= CALLS / 8)
        printf("two locks in turn: at most 1 in 8 calls entered librcl\n");
    else
        printf("two locks in turn: %ld of %d calls entered librcl\n", n, CALLS);
    long before = counters[0] + counters[1];
    run_threads(T, worker);
    CHECK(counters[0] + counters[1] == before + (long)T * M);
    printf("counters exact\n");
    return 0;
}
