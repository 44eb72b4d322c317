// fork() in a process whose servers run: the child starts its own servers lazily and its
// delegated critical sections work; the parent's keep working too.
// (TSan refuses threads after a multithreaded fork unless told: die_after_fork=0.)
// RUN: %cc %s -o %t %rcl_libs
// RUN: env TSAN_OPTIONS=die_after_fork=0:halt_on_error=1 %t | FileCheck %s
// CHECK: child: counter=2000
// CHECK: parent: counter=2000
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int inc(void *arg) { (void)arg; return (int)++counter; }
static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 500; i++)
        rcl_delegate(&m, inc, NULL);
    return NULL;
}

int main(void) {
    run_threads(2, worker); /* servers are running now */
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        run_threads(2, worker);
        printf("child: counter=%ld\n", counter);
        fflush(stdout);
        _exit(counter == 2000 ? 0 : 1);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    run_threads(2, worker);
    printf("parent: counter=%ld\n", counter);
    return 0;
}
