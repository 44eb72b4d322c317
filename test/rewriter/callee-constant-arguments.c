// A callee's branch that a constant argument rules out is not followed (jemalloc's
// `arena_get(tsdn, ind, false)`: its `if (init_if_missing) arena_init(...)`, which may start a
// background thread with its signals masked, never runs from such a call; about a hundred of
// jemalloc's sections were refused for it). The constants pass on through the callee's own
// parameters, unless the callee assigns them. A call that may take the branch still refuses its
// section.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s < %t.c
#include <pthread.h>
#include <signal.h>
#include <stddef.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long slots[16];
static long total;

static void start_helper(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static inline long *slot_get(int i, int create_if_missing)
{
    long *s = &slots[i & 15];
    if (__builtin_expect(*s == 0, 0)) {
        if (create_if_missing)
            start_helper();
    }
    return s;
}

static long *slot_lookup(int i, int create) { return slot_get(i, create); }

static int forced;
static long *slot_forced(int i, int create)
{
    create |= forced; /* no longer the caller's constant */
    return slot_get(i, create);
}

void read_slot(int i)
{
    pthread_mutex_lock(&m);
    total += *slot_get(i, 0);
    pthread_mutex_unlock(&m);
}
// CHECK: void read_slot(int i)
// CHECK: rcl_delegate

void read_slot_through(int i)
{
    pthread_mutex_lock(&m);
    total += *slot_lookup(i, NULL != NULL);
    pthread_mutex_unlock(&m);
}
// CHECK: void read_slot_through(int i)
// CHECK: rcl_delegate

void make_slot(int i)
{
    pthread_mutex_lock(&m);
    // ERR: callee-constant-arguments.c:[[@LINE+1]]:6: rcl: cannot convert critical section: calls 'slot_get', which through 'start_helper' changes or uses the calling thread's signal state
    *slot_get(i, 1) = 1;
    pthread_mutex_unlock(&m);
}

void make_slot_maybe(int i, int create)
{
    pthread_mutex_lock(&m);
    // ERR: callee-constant-arguments.c:[[@LINE+1]]:6: rcl: cannot convert critical section: calls 'slot_lookup', which through 'start_helper' changes or uses the calling thread's signal state
    *slot_lookup(i, create) += 1;
    pthread_mutex_unlock(&m);
}
void read_slot_forced(int i)
{
    pthread_mutex_lock(&m);
    // ERR: callee-constant-arguments.c:[[@LINE+1]]:15: rcl: cannot convert critical section: calls 'slot_forced', which through 'start_helper' changes or uses the calling thread's signal state
    total += *slot_forced(i, 0);
    pthread_mutex_unlock(&m);
}
// ERR: rcl: summary: 2 converted, 3 refused
