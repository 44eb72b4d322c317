// A thread cancelled while its section runs on the server as it (caller.c): the section's
// cancellation points (write here) see the caller's cancellation state, which the client
// disables around the call, so the request acts at the caller's next cancellation point after
// the call returns, never on the server thread (which would unwind the server with the
// caller's cleanup handlers). The server serves on afterwards. Without the disabling, the
// server thread is unwound: the program crashes (or hangs: alarm, exit 142).
// UNSUPPORTED: sanitizer
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_MODE=delegate %t | FileCheck %s
// CHECK: cancelled yes, calls balanced yes, server alive yes
#include <fcntl.h>
#include <pthread.h>
#include <rcl/rcl.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static __thread long mine;
static long entered, left;
static int devnull;

static int cs(void *arg) {
    (void)arg;
    entered++;
    mine++;
    if (write(devnull, "x", 1) != 1) /* a cancellation point, inside the section */
        return -1;
    left++;
    return 0;
}

static int plain(void *arg) {
    *(int *)arg = 1;
    return 0;
}

static void *worker(void *arg) {
    (void)arg;
    for (;;) {
        rcl_delegate_flags(&m, cs, NULL, 0, RCL_AS_CALLER);
        pthread_testcancel();
    }
    return NULL;
}

int main(void) {
    alarm(20);
    devnull = open("/dev/null", O_WRONLY);
    pthread_t t;
    void *ret;
    pthread_create(&t, NULL, worker, NULL);
    usleep(50000);
    pthread_cancel(t);
    pthread_join(t, &ret);
    int alive = 0;
    rcl_delegate(&m, plain, &alive);
    printf("cancelled %s, calls balanced %s, server alive %s\n",
           ret == PTHREAD_CANCELED ? "yes" : "no", entered == left ? "yes" : "no",
           alive ? "yes" : "no");
    fflush(stdout);
    return 0;
}
