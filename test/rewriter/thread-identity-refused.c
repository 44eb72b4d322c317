// Case 13: the body would run on another thread: alloca, setjmp, pthread_create (the new thread
// would inherit the server's CPU pin: memcached's start_lru_maintainer_thread) and fork are
// refused; file byte-identical. (Thread-local variables and pthread_self convert: the server
// runs such a section as its caller, caller-state-converted.c; so does va_arg, which reads the
// caller's frame, variadic-section.c.)
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <alloca.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long v;
static jmp_buf env;
static pthread_t tid;
static void *thread_main(void *arg) { return arg; }

void identity(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    pthread_mutex_lock(&m);
    char *s = alloca(8);
    // CHECK: thread-identity-refused.c:[[@LINE-1]]:15: rcl: cannot convert critical section: uses alloca
    s[0] = 0;
    pthread_mutex_unlock(&m);
    v += va_arg(ap, int);
    pthread_mutex_lock(&m);
    if (setjmp(env) == 0)
        v++;
    // CHECK: thread-identity-refused.c:[[@LINE-2]]:9: rcl: cannot convert critical section: uses setjmp/longjmp
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    v = pthread_create(&tid, NULL, thread_main, NULL);
    // CHECK: thread-identity-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: creates a thread, which would inherit the server's CPU affinity and signal mask
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    v = fork();
    // CHECK: thread-identity-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: forks, and the child would be a copy of the server thread
    pthread_mutex_unlock(&m);
    va_end(ap);
}
// CHECK: lock 'm': 0 converted, 4 refused
