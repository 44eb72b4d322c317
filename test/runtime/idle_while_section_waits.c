// A process whose only activity is delegated sections waiting on a condition is idle: the
// server parks without a timeout (the waiting sections' servicing threads kick it when they
// answer) and yields no more. Measured over one idle second; the bounds (50 ms of CPU, 300
// context switches) are wide behaviour checks, not speed targets: before the fix the process
// used ~40 ms and ~1,700 context switches per idle second, a spinning server ~1 s of CPU.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// CHECK: idle while 2 sections wait: ok
// CHECK: done
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <sys/resource.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int go, waiting;

static int wait_go(void *arg) {
    (void)arg;
    waiting++;
    while (!go)
        rcl_cond_wait(&cond, &lock);
    return 0;
}
static int release_all(void *arg) {
    (void)arg;
    go = 1;
    pthread_cond_broadcast(&cond);
    return 0;
}
static int count_waiting(void *arg) {
    (void)arg;
    return waiting;
}
static void *waiter(void *arg) {
    (void)arg;
    rcl_delegate(&lock, wait_go, NULL);
    return NULL;
}
static void usage(double *cpu, long *switches) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *cpu =
        ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    *switches = ru.ru_nvcsw + ru.ru_nivcsw;
}
int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, waiter, NULL) == 0);
    while (rcl_delegate(&lock, count_waiting, NULL) < 2)
        usleep(1000);
    sleep(1); /* let every spin and every client's early futex timeouts run out */
    double c0, c1;
    long s0, s1;
    usage(&c0, &s0);
    sleep(1);
    usage(&c1, &s1);
    fprintf(stderr, "idle second: %.4f s CPU, %ld context switches\n", c1 - c0, s1 - s0);
    CHECK(c1 - c0 < 0.05);
    CHECK(s1 - s0 < 300);
    printf("idle while 2 sections wait: ok\n");
    rcl_delegate(&lock, release_all, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("done\n");
    return 0;
}
