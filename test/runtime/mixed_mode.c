// Mixed mode: delegated critical sections and local ones (pthread_mutex_lock, trylock and
// timedlock on the same mutex, as unconverted code does) never overlap. Every CS sets an
// in-CS ownership flag and fails if it was already set; the counter stays exact.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_CLIENT_AFFINITY=any %t | FileCheck %s
// RUN: env RCL_SPIN_NS=0 RCL_SERVER_SPIN_NS=0 %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s
// RUN: env RCL_MODE=adaptive RCL_ADAPTIVE_FLIP=2 %t | FileCheck %s
// CHECK: no overlap; counter exact
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <time.h>

#define N 20000
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static atomic_int inside;
static long counter;
static atomic_long local_done, try_done;

static void body(void) {
    CHECK(atomic_exchange(&inside, 1) == 0); /* somebody else is in the critical section */
    long v = counter;
    for (volatile int spin = 0; spin < 300; spin++)
        ;
    counter = v + 1;
    atomic_store(&inside, 0);
}

static int delegated(void *arg) {
    (void)arg;
    body();
    return 0;
}

static void *delegating(void *arg) {
    (void)arg;
    for (int i = 0; i < N; i++)
        rcl_delegate(&m, delegated, NULL);
    return NULL;
}

static void *locking(void *arg) {
    long id = (long)arg;
    for (int i = 0; i < N; i++) {
        if (id % 2 == 0) {
            pthread_mutex_lock(&m);
            body();
            pthread_mutex_unlock(&m);
            atomic_fetch_add(&local_done, 1);
        } else {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 5;
            int got = (i % 2) ? pthread_mutex_trylock(&m) == 0 : pthread_mutex_timedlock(&m, &ts) == 0;
            if (got) {
                body();
                pthread_mutex_unlock(&m);
                atomic_fetch_add(&try_done, 1);
            }
        }
    }
    return NULL;
}

static void *worker(void *arg) {
    long id = (long)arg;
    return id < 2 ? delegating(arg) : locking(arg);
}

int main(void) {
    for (int round = 1; round <= 3; round++) { /* more rounds, more interleavings */
        run_threads(4, worker);
        long expected = round * 2L * N + atomic_load(&local_done) + atomic_load(&try_done);
        CHECK(counter == expected);
        CHECK(atomic_load(&local_done) == round * N);
    }
    printf("no overlap; counter exact\n");
    return 0;
}
