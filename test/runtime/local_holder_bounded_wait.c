// Bounded waiting against local holders: a thread that holds a mutex most of the time and
// re-locks it right after each unlock keeps winning against the server's trylock. After a
// request found the mutex held for RCL_LOCAL_WAIT_US, a servicing thread waits for it in
// pthread_mutex_lock (as a thread of the original program would) while the poller goes on with
// other locks: the delegated requests complete, the other lock's requests keep flowing, and
// RCL_STATS counts the waits (0 before the bound existed: requests were only polled).
// RUN: %cc %s -o %t %rcl_libs
// Each delegated call is posted just after the local loop took the mutex for its 200 us, with
// the bound at 50 us, so that every request finds the mutex held past the bound (on a loaded
// machine, requests posted at random instant could all land in the loop's gaps: "0 waited").
// RUN: env RCL_STATS=1 RCL_LOCAL_WAIT_US=50 %t 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// RUN: env RCL_MODE=local %t | FileCheck %s --check-prefix=LOCAL
// CHECK: 100 delegated sections completed against the local loop; other lock meanwhile: {{[1-9][0-9]*}}; counter exact
// (Local mode: no poller; whether the other thread ran meanwhile is the scheduler's business.)
// LOCAL: 100 delegated sections completed against the local loop; other lock meanwhile: {{[0-9]+}}; counter exact
// STATS: {{[1-9][0-9]*}} waited for a local holder
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, other = PTHREAD_MUTEX_INITIALIZER;
static long counter, local_rounds;
static atomic_long other_count;
static atomic_int stop, started;
static atomic_long holds; /* times the local loop took the mutex */

static int inc(void *arg) {
    (void)arg;
    return (int)++counter;
}
static int inc_other(void *arg) {
    (void)arg;
    return (int)atomic_fetch_add(&other_count, 1);
}
static void *local_loop(void *arg) {
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        pthread_mutex_lock(&m);
        atomic_fetch_add(&holds, 1);
        usleep(200); /* holds the mutex most of the time */
        counter++;
        local_rounds++;
        atomic_store(&started, 1);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}
static void *other_client(void *arg) {
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed))
        rcl_delegate(&other, inc_other, NULL);
    return NULL;
}
int main(void) {
    alarm(120); /* liveness only */
    rcl_server_count();
    pthread_t t, o;
    CHECK(pthread_create(&t, NULL, local_loop, NULL) == 0);
    CHECK(pthread_create(&o, NULL, other_client, NULL) == 0);
    while (!atomic_load(&started) || !atomic_load(&other_count)) /* both loops running */
        usleep(100);
    long other_before = atomic_load(&other_count);
    for (int i = 0; i < 100; i++) {
        long h = atomic_load(&holds);
        while (atomic_load(&holds) == h) /* a hold has just begun */
            sched_yield();
        rcl_delegate(&m, inc, NULL);
    }
    long other_during = atomic_load(&other_count) - other_before;
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    pthread_join(o, NULL);
    CHECK(counter == local_rounds + 100);
    printf("100 delegated sections completed against the local loop; other lock meanwhile: %ld; "
           "counter exact\n",
           other_during);
    return 0;
}
