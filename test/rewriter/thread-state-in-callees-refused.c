// Per-thread state that the kernel keeps, touched by a function that the section calls (in this
// file, directly or through further calls), would be the server's: the signal mask, the
// thread's name, its cancellation state. Refused with the callee and where it does it
// (/work/shared/cases/thread_state_in_callees.c). A callee that also uses a thread-local
// variable or thread-specific data (which a section run as its caller keeps,
// caller-state-converted.c) is refused for the other thing it does, wherever each is.
// errno is no reason: the runtime carries it into and out of every delegated call
// (errno-in-section.c).
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static __thread long my_ops;
static pthread_key_t key;
static void block_usr1(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
}
static void rename_thread(const char *n) { prctl(PR_SET_NAME, n); }
static void outer(void) { rename_thread("x"); }
static void count_then_block(void) { my_ops++; block_usr1(); }
static void *key_then_cancel(void)
{
    int old;
    void *p = pthread_getspecific(key);
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    return p;
}

void sections(void)
{
    pthread_mutex_lock(&m);
    block_usr1();
    // CHECK: thread-state-in-callees-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: calls 'block_usr1', which changes or uses the calling thread's signal state (thread-state-in-callees-refused.c:24)
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    outer();
    // CHECK: thread-state-in-callees-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: calls 'outer', which through 'rename_thread' acts on the calling thread (prctl), which would be the server (thread-state-in-callees-refused.c:26)
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    my_ops++;
    count_then_block();
    // CHECK: thread-state-in-callees-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: calls 'count_then_block', which through 'block_usr1' changes or uses the calling thread's signal state (thread-state-in-callees-refused.c:24)
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    (void)key_then_cancel();
    // CHECK: thread-state-in-callees-refused.c:[[@LINE-1]]:11: rcl: cannot convert critical section: calls 'key_then_cancel', which changes or uses the calling thread's cancellation state (thread-state-in-callees-refused.c:33)
    pthread_mutex_unlock(&m);
}
// CHECK: rcl: summary: 0 converted, 4 refused
