// A thread that alternates between two locks (a thread pool's worker takes a job under one and
// files its result under the other) gets calls of *both* locks timed, so both reach a decision.
// Before, one call in 16 of the thread's sequence was timed, whichever lock it was for: with
// period 2 (or 4, 8, 16) every timed call fell on the same lock, and the other's epochs never
// closed ("none yet" after any number of calls). RCL_STATS makes every call enter the library,
// where the choice is made; the check is on counts, never on time.
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_MODE=adaptive RCL_STATS=1 %t 2 2>&1 | FileCheck %s
// RUN: env RCL_MODE=adaptive RCL_STATS=1 %t 4 2>&1 | FileCheck %s
// RUN: env RCL_MODE=adaptive %t 2 2>&1 | FileCheck %s --check-prefix=EXACT
// CHECK: counters exact
// CHECK-NOT: none yet
// CHECK: rcl: lock {{.*}} calls
// CHECK-NOT: none yet
// CHECK: rcl: lock {{.*}} calls
// CHECK-NOT: none yet
// EXACT: counters exact
#include "Inputs/harness.h"
#include <rcl/rcl.h>

#define CALLS 40000 /* per lock: 2,500 timed at 1 in 16, about 39 epochs of 64 samples */

static pthread_mutex_t locks[4] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                   PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static long counters[4]; /* counters[k] protected by locks[k] */

static int increment(void *arg) {
    counters[*(int *)arg]++;
    return 0;
}

int main(int argc, char **argv) {
    int period = argc > 1 ? atoi(argv[1]) : 2; /* locks the thread takes in turn */
    CHECK(period >= 1 && period <= 4);
    for (int i = 0; i < CALLS * period; i++) {
        int k = i % period;
        CHECK(rcl_delegate(&locks[k], increment, &k) == 0);
    }
    for (int k = 0; k < period; k++)
        CHECK(counters[k] == CALLS);
    printf("counters exact\n");
    fflush(stdout);
    return 0;
}
