// A delegated section on a mutex that its caller already holds locally (an outer lock/unlock
// pair spanning two functions stays local): the server can never take the mutex, so it hands
// the request back and the caller runs it under its own pthread_mutex_lock, exactly as before
// conversion: a recursive mutex is taken one level deeper, an error-checking one reports
// EDEADLK to nobody and its unlock releases the outer hold (as the original's would).
// Without the hand-back the first case hangs (alarm: exit by SIGALRM).
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s
// CHECK: recursive: n=2 depth-ok=1
// CHECK: errorcheck: n=3 released-by-inner-unlock=1
// CHECK: other threads: n=2003
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <unistd.h>

static pthread_mutex_t m;
static long n;
static int inc(void *arg) {
    (void)arg;
    return (int)++n;
}
static void *other(void *arg) {
    (void)arg;
    for (int i = 0; i < 1000; i++)
        rcl_delegate(&m, inc, NULL);
    return NULL;
}

static void init(int type) {
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, type);
    pthread_mutex_init(&m, &a);
    pthread_mutexattr_destroy(&a);
}

int main(void) {
    alarm(20);
    init(PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_lock(&m); /* outer_begin() */
    rcl_delegate(&m, inc, NULL);
    /* still held once by us: another thread cannot take it */
    int depth_ok = pthread_mutex_trylock(&m) == 0; /* recursive: a third level */
    if (depth_ok) pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&m); /* outer_end() */
    rcl_delegate(&m, inc, NULL);
    printf("recursive: n=%ld depth-ok=%d\n", n, depth_ok);

    pthread_mutex_destroy(&m);
    init(PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_lock(&m);
    rcl_delegate(&m, inc, NULL); /* lock: EDEADLK; inc; unlock releases the outer hold */
    int released = pthread_mutex_trylock(&m) == 0; /* free again: ours now */
    if (released) pthread_mutex_unlock(&m);
    printf("errorcheck: n=%ld released-by-inner-unlock=%d\n", n, released);

    /* Mixed: two threads delegate while main takes the recursive mutex in nested pairs. */
    pthread_mutex_destroy(&m);
    init(PTHREAD_MUTEX_RECURSIVE);
    n = 0;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, other, NULL) == 0);
    for (int i = 0; i < 3; i++) {
        pthread_mutex_lock(&m);
        rcl_delegate(&m, inc, NULL);
        pthread_mutex_unlock(&m);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("other threads: n=%ld\n", n);
    return 0;
}
