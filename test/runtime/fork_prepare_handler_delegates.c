// A pthread_atfork prepare handler registered before the runtime's own (by a constructor that
// runs before librcl's: a library loaded earlier) runs after it (prepare handlers run in
// reverse order of registration), while the servers are paused for the fork. If it takes a converted lock (a library flushing its state before
// fork), its section runs in the caller (mixed mode) instead of waiting for a paused server.
// Before the fix the fork hung.
// RUN: %cc %s -o %t %rcl_libs
// RUN: env TSAN_OPTIONS=die_after_fork=0:halt_on_error=1 %t | FileCheck %s
// CHECK: prepare ran 3 sections; child 0; counter=1003
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int prepared;
static int inc(void *arg) {
    (void)arg;
    return (int)++counter;
}
static void prepare(void) {
    rcl_delegate(&m, inc, NULL); /* lock; counter++; unlock, converted */
    prepared++;
}
static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 500; i++)
        rcl_delegate(&m, inc, NULL);
    return NULL;
}
/* Before librcl's constructor (default priority), which registers the runtime's handlers. */
__attribute__((constructor(101))) static void register_prepare(void) {
    pthread_atfork(prepare, NULL, NULL);
}
int main(void) {
    alarm(30);
    run_threads(2, worker);               /* starts the runtime */
    int st = -1;
    for (int i = 0; i < 3; i++) {
        fflush(stdout);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) _exit(0);
        waitpid(pid, &st, 0);
    }
    printf("prepare ran %d sections; child %d; counter=%ld\n", prepared, WEXITSTATUS(st), counter);
    return 0;
}
