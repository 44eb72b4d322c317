// Per-thread state touched by a function that the section calls (in this file, directly or
// through further calls) would be the server's: a __thread counter, pthread_getspecific, the
// signal mask, the thread's name. Refused with the callee and where it does it
// (/work/shared/cases/thread_state_in_callees.c: all four were converted). errno is no reason:
// the runtime carries it into and out of every delegated call (errno-in-section.c).
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static __thread long my_ops;
static _Thread_local int depth;
static pthread_key_t key;
static void count_op(void) { my_ops++; }
static void enter(void) { depth++; }
static void *logger(void) { return pthread_getspecific(key); }
static void block_usr1(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
}
static void rename_thread(const char *n) { prctl(PR_SET_NAME, n); }
static void outer(void) { rename_thread("x"); }

void sections(void)
{
    pthread_mutex_lock(&m);
    count_op();
    // CHECK: thread-state-in-callees-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: calls 'count_op', which uses thread-local variable 'my_ops' (thread-state-in-callees-refused.c:17)
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    enter();
    // CHECK: thread-state-in-callees-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: calls 'enter', which uses thread-local variable 'depth' (thread-state-in-callees-refused.c:18)
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    (void)logger();
    // CHECK: thread-state-in-callees-refused.c:[[@LINE-1]]:11: rcl: cannot convert critical section: calls 'logger', which depends on the calling thread's identity (thread-state-in-callees-refused.c:19)
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    block_usr1();
    // CHECK: thread-state-in-callees-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: calls 'block_usr1', which changes or uses the calling thread's signal state (thread-state-in-callees-refused.c:25)
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    outer();
    // CHECK: thread-state-in-callees-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: calls 'outer', which through 'rename_thread' acts on the calling thread (prctl), which would be the server (thread-state-in-callees-refused.c:27)
    pthread_mutex_unlock(&m);
}
// CHECK: rcl: summary: 0 converted, 5 refused
