// A callee's branch that a constant argument rules out is not followed (jemalloc's
// `arena_get(tsdn, ind, false)`: its `if (init_if_missing) arena_init(...)`, which may start a
// background thread with its signals masked, never runs from such a call; about a hundred of
// jemalloc's sections were refused for it). The constants pass on through the callee's own
// parameters, unless the callee assigns them; the constants written in a condition decide it
// too (`&&` and `||` included). A call that may take the branch still refuses its section.
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
// PortAudio's UNLESS(expr, code): the calling thread is asked (pthread_self, which a section that
// waits may not do on the server) only for one error code, and the macro is used with another
// constant (`UNLESS(err != ETIMEDOUT, paTimedOut)`): the call never runs. Here the thread is
// signalled instead, which no section may do on the server.
enum { paNoError = 0, paTimedOut = -9987, paUnanticipatedHostError = -9999 };
static long host_errors;
#define UNLESS(expr, code)                                                                       \
    do {                                                                                         \
        if ((expr) == 0) {                                                                       \
            if ((code) == paUnanticipatedHostError && raise(SIGUSR1) == 0)                     \
                host_errors++;                                                                   \
            result = (code);                                                                     \
            goto error;                                                                          \
        }                                                                                        \
    } while (0)
static int check_slot(long v)
{
    int result = paNoError;
    UNLESS(v >= 0, paTimedOut);
error:
    return result;
}
static int check_slot_host(long v)
{
    int result = paNoError;
    UNLESS(v >= 0, paUnanticipatedHostError);
error:
    return result;
}

void check(int i)
{
    pthread_mutex_lock(&m);
    total += check_slot(slots[i & 15]);
    pthread_mutex_unlock(&m);
}
// CHECK: void check(int i)
// CHECK: rcl_delegate

void check_host(int i)
{
    pthread_mutex_lock(&m);
    // ERR: callee-constant-arguments.c:[[@LINE+1]]:14: rcl: cannot convert critical section: calls 'check_slot_host', which changes or uses the calling thread's signal state
    total += check_slot_host(slots[i & 15]);
    pthread_mutex_unlock(&m);
}
// ERR: rcl: summary: 3 converted, 4 refused
