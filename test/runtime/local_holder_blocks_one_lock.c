// A thread holding lock A locally (unconverted code) for 200 ms delays only A's delegated
// critical sections: during that time thousands of critical sections of lock B, on the same
// server, complete; then A's delegated CS runs after the local holder released A. First with
// A's request polled by the server for the whole hold, then with the default bound
// (RCL_LOCAL_WAIT_US): after 1 ms a servicing thread waits for A in pthread_mutex_lock while
// another one serves B. B must progress (100 sections at least: a liveness bound, not a speed).
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_LOCAL_WAIT_US=10000000 %t | FileCheck %s
// RUN: %t | FileCheck %s
// CHECK: B progressed while A was held locally; A's CS ran after the local CS
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static atomic_int a_local_done, a_held;
static atomic_long b_count;
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
        usleep(200 * 1000);
        atomic_store(&a_local_done, 1);
        pthread_mutex_unlock(&a);
    } else if (id == 1) { /* delegates A while it is held locally */
        while (!atomic_load(&a_held))
            usleep(100);
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
    fprintf(stderr, "B critical sections during the local hold: %ld\n", atomic_load(&b_count));
    CHECK(atomic_load(&b_count) >= 100);
    CHECK(order_ok == 1);
    printf("B progressed while A was held locally; A's CS ran after the local CS\n");
    return 0;
}
