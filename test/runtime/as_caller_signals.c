// A section run as its caller shares the caller's thread-local storage with it (caller.c): a
// signal handler that ran on the waiting client meanwhile would race with the section there.
// The client masks its signals around the call, so each handler runs before or after a
// section, as on the original's single thread. Here a handler that bumps the thread's counter
// and clobbers errno (restoring it) hits a thread whose sections bump the same counter and
// check errno across a delay: no update may be lost, no section may see another errno. With
// the client's signals left unmasked this loses updates within a few thousand signals.
// UNSUPPORTED: sanitizer
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t 2>&1 | FileCheck %s
// CHECK: lost 0 errno 0
// CHECK: run as their caller, 0 in their caller
#include <errno.h>
#include <pthread.h>
#include <rcl/rcl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define N 20000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static __thread volatile long counter;
static _Atomic long handled, bad_errno;
static _Atomic int done;

static void on_usr1(int sig) {
    (void)sig;
    int saved = errno;
    errno = 12345;
    counter += 1000000; /* a read-modify-write of the thread's counter */
    handled++;
    errno = saved;
}

static int cs(void *arg) {
    (void)arg;
    errno = 0;
    long c = counter;
    for (volatile int i = 0; i < 200; i++) /* a window for a handler to land in */
        ;
    counter = c + 1;
    if (errno != 0) bad_errno++;
    return 0;
}

static void *worker(void *arg) {
    long *result = arg;
    for (int i = 0; i < N; i++)
        rcl_delegate_flags(&m, cs, NULL, 0, RCL_AS_CALLER);
    *result = counter;
    done = 1;
    return NULL;
}

int main(void) {
    struct sigaction sa = {.sa_handler = on_usr1};
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    long result = 0;
    pthread_t t;
    pthread_create(&t, NULL, worker, &result);
    struct timespec pause = {0, 20000};
    while (!done) {
        pthread_kill(t, SIGUSR1);
        nanosleep(&pause, NULL);
    }
    pthread_join(t, NULL);
    long lost = (long)N + 1000000L * (long)handled - result;
    printf("handled %s lost %ld errno %ld\n", handled > 0 ? "some" : "none", lost, (long)bad_errno);
    fflush(stdout);
    return 0;
}
