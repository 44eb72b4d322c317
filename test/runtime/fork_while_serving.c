// fork() while other threads' delegated sections run: the servers pause between passes in a
// pthread_atfork handler, so no server thread holds the program's mutex across the fork, and
// the child's first section (on fresh servers) never finds it held. Before the fix a child hung
// at its first lock in about one run in five. (RCL_MODE=local is the original program, whose
// own threads sit inside sections at some forks: its children hang now and then, as
// unconverted; not a check of the runtime.)
// Not under ThreadSanitizer: it does not support threads started in the child of a
// multithreaded fork (die_after_fork=0 only lets the child try: TSan's own state copied
// mid-update can hang it). One CI run saw a child hang at its first fork under TSan that 432
// TSan children here, and 3000 plain ones, never showed. fork_child.c and
// fork_prepare_handler_delegates.c keep the fork pause itself under TSan, one fork each.
// UNSUPPORTED: thread-sanitizer
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// CHECK: bad children=0
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

/* Sanitized builds fork and run children ~10x slower: fewer rounds there. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) ||                               \
    (defined(__has_feature) &&                                                                     \
     (__has_feature(thread_sanitizer) || __has_feature(address_sanitizer)))
#define ROUNDS 12
#else
#define ROUNDS 100
#endif

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static atomic_int stop;
static int inc(void *arg) {
    (void)arg;
    return (int)++counter;
}
static int get(void *arg) {
    *(long *)arg = counter;
    return 0;
}
static void bump(int n) {
    for (int i = 0; i < n; i++)
        rcl_delegate(&m, inc, NULL);
}
static void *short_lived(void *x) {
    (void)x;
    bump(50);
    return NULL;
}
static void *hammer(void *x) {
    (void)x;
    while (!atomic_load(&stop))
        bump(100);
    return NULL;
}
static void *churner(void *x) {
    (void)x;
    while (!atomic_load(&stop)) {
        pthread_t t;
        CHECK(pthread_create(&t, NULL, short_lived, NULL) == 0);
        pthread_join(t, NULL);
    }
    return NULL;
}
static void *child_thr(void *x) {
    (void)x;
    bump(1000);
    return NULL;
}
int main(void) {
    pthread_t c[3]; /* one thread churns (short-lived clients), two delegate back to back */
    for (int i = 0; i < 3; i++)
        CHECK(pthread_create(&c[i], NULL, i ? hammer : churner, NULL) == 0);
    int bad = 0;
    for (int it = 0; it < ROUNDS; it++) {
        fflush(stdout);
        pid_t p = fork();
        CHECK(p >= 0);
        if (p == 0) {
            alarm(20); /* a hung child fails the run instead of hanging it */
            long before;
            rcl_delegate(&m, get, &before);
            pthread_t t;
            CHECK(pthread_create(&t, NULL, child_thr, NULL) == 0);
            bump(1000);
            pthread_join(t, NULL);
            _exit(counter == before + 2000 ? 0 : 3);
        }
        int st;
        waitpid(p, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            if (++bad < 4) fprintf(stderr, "iteration %d: child status %#x\n", it, st);
        }
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 3; i++)
        pthread_join(c[i], NULL);
    printf("bad children=%d\n", bad);
    return bad != 0;
}
