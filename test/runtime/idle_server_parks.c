// After a burst of delegated critical sections, an idle process uses next to no CPU: the
// servers and the clients park. A spinning server would use ~1 s of CPU in the idle second;
// the bound below (250 ms) is a behaviour check with a wide margin, not a speed target.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// CHECK: idle second: parked
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <sys/resource.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int inc(void *arg) { (void)arg; return (int)++counter; }
static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 2000; i++)
        rcl_delegate(&m, inc, NULL);
    return NULL;
}

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(void) {
    run_threads(2, worker);
    usleep(100 * 1000); /* let the server's bounded spin run out */
    double before = cpu_seconds();
    sleep(1);
    double used = cpu_seconds() - before;
    fprintf(stderr, "CPU used during the idle second: %.3f s\n", used);
    CHECK(used < 0.25);
    CHECK(counter == 4000);
    printf("idle second: parked\n");
    return 0;
}
