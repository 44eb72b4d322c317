// Runtime threads block asynchronous signals: a program that uses a lock at start-up (the
// servers start then, with the mask of that moment), then blocks SIGTERM in every thread and
// takes it with sigwait, is not killed by a SIGTERM delivered to a server thread.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s
// CHECK: config=1 shutdown by signal 15
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <signal.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int config_loaded;
static _Atomic int got_sig;
static int load(void *arg) {
    (void)arg;
    config_loaded = 1;
    return 0;
}
static int record(void *arg) {
    got_sig = *(int *)arg;
    return 0;
}
static void *sig_thread(void *x) {
    sigset_t *set = x;
    int sig;
    sigwait(set, &sig);
    rcl_delegate(&m, record, &sig);
    return NULL;
}
int main(void) {
    rcl_delegate(&m, load, NULL); /* uses the lock during start-up */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL); /* every thread from here on blocks them */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, sig_thread, &set) == 0);
    for (int i = 0; i < 20; i++) {
        usleep(20000);
        kill(getpid(), SIGTERM); /* "please shut down" from outside; repeated: any thread */
        if (got_sig) break;
    }
    pthread_join(t, NULL);
    printf("config=%d shutdown by signal %d\n", config_loaded, (int)got_sig);
    return 0;
}
