// Sections that use their thread's state in the C library convert: a thread-local variable in
// the body or in a callee, pthread_self in a logging callee (pcsc-lite's log_line, unbound's
// log_vmsg through thread-specific data, alsa-lib's per-thread error handler, libusb's cached
// thread id read back). The server runs each as its caller (rcl_delegate_flags, RCL_AS_CALLER:
// runtime/src/caller.c), so each thread's counters, its handle and its key's value are its own
// inside the section; the program prints per-thread results that a section run with the
// server's state would get wrong (every thread's counter would be 0 but the server's). One that
// also waits on a condition stays as it is.
// UNSUPPORTED: sanitizer
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s < %t.c
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
// RUN: env RCL_MODE=delegate RCL_AS_CALLER=0 %t.rcl > %t.here.out && diff %t.orig.out %t.here.out
// ERR-DAG: rcl: note: converted critical section runs on the server as its caller (with the caller's thread-local storage): it uses thread-local variable 'ops'
// ERR-DAG: rcl: note: converted critical section runs on the server as its caller (with the caller's thread-local storage): it calls 'count', which uses thread-local variable 'depth'
// ERR-DAG: rcl: note: converted critical section runs on the server as its caller (with the caller's thread-local storage): it calls 'log_line', which uses its thread's pthread_self
// ERR-DAG: rcl: note: converted critical section runs on the server as its caller (with the caller's thread-local storage): it calls 'handler_of', which uses its thread's thread-specific data (pthread_getspecific)
// ERR-DAG: cannot convert critical section: waits on a condition variable, and uses thread-local variable 'ops', which only a section that does not wait may do on the server
// ERR: rcl: summary: 4 converted, 2 refused
// CHECK-COUNT-4: rcl_delegate_flags(&m, rcl_cs_{{.*}}, RCL_AS_CALLER)
// STATS: 4000 run as their caller, 0 in their caller
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define THREADS 4
#define N       250

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static __thread long ops;
static _Thread_local int depth;
static pthread_key_t key;
static pthread_t handles[THREADS + 1];
static long total, same_handle, lines, handled, go = 1, ops_of[THREADS + 1];
static int depth_of[THREADS + 1];

static void count(void) { depth++; }
static void log_line(int id) { same_handle += pthread_equal(pthread_self(), handles[id]); lines++; }
static intptr_t handler_of(void) { return (intptr_t)pthread_getspecific(key); }

static void *worker(void *arg) {
    int id = (int)(intptr_t)arg;
    pthread_setspecific(key, (void *)(intptr_t)(id * 10));
    for (int i = 0; i < N; i++) {
        pthread_mutex_lock(&m);
        ops++;
        total++;
        pthread_mutex_unlock(&m);
        pthread_mutex_lock(&m);
        count();
        pthread_mutex_unlock(&m);
        pthread_mutex_lock(&m);
        log_line(id);
        pthread_mutex_unlock(&m);
        pthread_mutex_lock(&m);
        handled += handler_of() == id * 10;
        pthread_mutex_unlock(&m);
    }
    pthread_mutex_lock(&m);
    while (!go)
        pthread_cond_wait(&c, &m);
    ops++;
    pthread_mutex_unlock(&m);
    ops_of[id] = ops;
    depth_of[id] = depth;
    return NULL;
}

int main(void) {
    pthread_key_create(&key, NULL);
    pthread_mutex_lock(&m); /* the handles are written before any thread reads one (refused:
                               it creates threads) */
    for (int i = 1; i <= THREADS; i++)
        pthread_create(&handles[i], NULL, worker, (void *)(intptr_t)i);
    pthread_mutex_unlock(&m);
    for (int i = 1; i <= THREADS; i++) {
        pthread_join(handles[i], NULL);
        printf("thread %d: ops %ld depth %d\n", i, ops_of[i], depth_of[i]);
    }
    printf("total %ld lines %ld same handle %ld handled %ld\n", total, lines, same_handle, handled);
    return 0;
}
