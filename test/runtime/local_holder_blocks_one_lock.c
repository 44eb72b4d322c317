// A thread holding lock A locally (unconverted code) delays only A's delegated critical
// sections: while it holds A, with A's request posted, critical sections of lock B on the same
// server complete; then A's delegated CS runs after the local holder released A. First with
// A's request polled by the server for the whole hold, then with the default bound
// (RCL_LOCAL_WAIT_US): after 1 ms a servicing thread waits for A in pthread_mutex_lock while
// another one serves B. B must progress: the holder keeps A until 100 of B's sections ran after
// A's request was posted, and gives up after 30 s (a liveness bound, not a speed: a fixed hold
// of 200 ms saw 99 of them on a loaded 2-vCPU machine).
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_LOCAL_WAIT_US=10000000 %t | FileCheck %s
// RUN: %t | FileCheck %s
// CHECK: B progressed while A was held locally; A's CS ran after the local CS
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static atomic_int a_local_done, a_held, a_posting;
static atomic_long b_count, b_during;
static int order_ok;

static int cs_a(void *arg) {
    (void)arg;
    order_ok = atomic_load(&a_local_done);
    return 0;
}
static int cs_b(void *arg) {
    (void)arg;
    atomic_fetch_add(&b_count, 1);
    return 0;
}

static void *worker(void *arg) {
    long id = (long)arg;
    if (id == 0) { /* the local holder */
        pthread_mutex_lock(&a);
        atomic_store(&a_held, 1);
        while (!atomic_load(&a_posting))
            usleep(100);
        usleep(20 * 1000); /* (A's request is posted by now, or soon) */
        long start = atomic_load(&b_count);
        for (int waited = 0; atomic_load(&b_count) - start < 100 && waited < 30000; waited++)
            usleep(1000);
        atomic_store(&b_during, atomic_load(&b_count) - start);
        atomic_store(&a_local_done, 1);
        pthread_mutex_unlock(&a);
    } else if (id == 1) { /* delegates A while it is held locally */
        while (!atomic_load(&a_held))
            usleep(100);
        atomic_store(&a_posting, 1);
        rcl_delegate(&a, cs_a, NULL);
    } else { /* delegates B throughout */
        while (!atomic_load(&a_held))
            usleep(100);
        while (!atomic_load(&a_local_done))
            rcl_delegate(&b, cs_b, NULL);
    }
    return NULL;
}

int main(void) {
    CHECK(rcl_server_count() == 1);
    run_threads(3, worker);
    fprintf(stderr, "B critical sections during the local hold, A's request posted: %ld\n",
            atomic_load(&b_during));
    CHECK(atomic_load(&b_during) >= 100);
    CHECK(order_ok == 1);
    printf("B progressed while A was held locally; A's CS ran after the local CS\n");
    return 0;
}
