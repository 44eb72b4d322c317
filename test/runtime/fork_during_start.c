// fork() while another thread starts the runtime. glibc lets pthread_atfork register while a
// fork runs another library's prepare handler (it drops its list lock around each handler),
// and a handler registered then is left out of that fork, prepare and child alike. The runtime
// used to register its handlers at its first call: a thread starting it during such a prepare
// handler (here the program's own; under AddressSanitizer, the sanitizer's) took rt_init_lock
// unseen by the fork, and the child hung at its first section, on that lock, held by a thread
// it does not have. librcl now registers its handlers from a constructor, before main. Before
// the fix the child hung here (killed by its alarm) in every run.
// The starter's start-up is held inside it (in its first pthread_create, wrapped) until the
// fork is done or 300 ms have passed: the fork happens while it holds rt_init_lock, whenever
// the runtime's prepare handler is not in the fork's list.
// RUN: %cc %s -o %t %rcl_libs -Wl,--wrap=pthread_create
// RUN: env TSAN_OPTIONS=die_after_fork=0:halt_on_error=1 %t | FileCheck %s
// CHECK: child 0; counter=2
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static atomic_int go, in_start, forked;
static int inc(void *arg) {
    (void)arg;
    return (int)++counter;
}
static long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
int __real_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
/* The runtime's start-up creates its servers under rt_init_lock: the first such call after the
 * fork began waits there for the fork (at most 300 ms, which a runtime whose prepare handler
 * takes rt_init_lock spends waiting for it). */
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
    if (atomic_load(&go) && !atomic_exchange(&in_start, 1)) {
        long until = now_ms() + 300;
        while (!atomic_load(&forked) && now_ms() < until)
            sched_yield();
    }
    return __real_pthread_create(t, a, fn, arg);
}
/* The program's prepare handler, registered in main: it runs while the fork is under way, and
 * lets the other thread make the process's first section (which starts the runtime) meanwhile;
 * it returns once that thread is inside the start-up. */
static void prepare(void) {
    atomic_store(&go, 1);
    long until = now_ms() + 300;
    while (!atomic_load(&in_start) && now_ms() < until)
        sched_yield();
}
static void parent(void) {
    atomic_store(&forked, 1);
}
static void *starter(void *arg) {
    (void)arg;
    while (!atomic_load(&go))
        sched_yield();
    rcl_delegate(&m, inc, NULL); /* the first section: starts the runtime */
    return NULL;
}
int main(void) {
    alarm(60);
    pthread_atfork(prepare, parent, NULL);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, starter, NULL) == 0);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(10); /* a hung child fails the run instead of hanging it */
        rcl_delegate(&m, inc, NULL);
        _exit(0);
    }
    int st = -1;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(pthread_join(t, NULL) == 0);
    rcl_delegate(&m, inc, NULL);
    printf("child %d; counter=%ld\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
           counter);
    return 0;
}
