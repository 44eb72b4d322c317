// pthread_cleanup_push/pop inside a section: the handlers are the calling thread's (run at its
// cancellation), and glibc's macro sets a jump buffer with __sigsetjmp, which would live on the
// server's stack. Refused, naming what the user wrote (it said "uses setjmp/longjmp"; the
// legacy-shape fuzzer placed it 3,086 times). File byte for byte.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void cleanup(void *arg) { (void)arg; }
int n;
void f(void)
{
    pthread_mutex_lock(&m);
    pthread_cleanup_push(cleanup, 0);
    n++;
    pthread_cleanup_pop(0);
    pthread_mutex_unlock(&m);
}
// CHECK: cleanup-push-refused.c:[[@LINE-5]]:5: rcl: cannot convert critical section: uses pthread_cleanup_push/pop, whose handlers are the calling thread's
// CHECK: rcl: summary: 0 converted, 1 refused
