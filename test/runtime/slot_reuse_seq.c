// Clients that exit right after their answer while the answers of their response group's
// other slots are still buffered by the server, and threads that take over their mailboxes:
// a reused slot keeps its request sequence number, so the server neither runs a request nobody
// posted (a slot reset to 0 looks posted against its last answer) nor misses the new owner's
// first request. Every count is exact.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_SPIN_NS=0 %t | FileCheck %s
// CHECK: short-lived 2400 + steady {{[0-9]+}}: exact
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <stdatomic.h>

#define WAVES    300
#define PER_WAVE 8 /* one response line's worth of slots */

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter; /* protected by m */
static _Atomic int stop;
static _Atomic long steady_calls;

static int inc(void *arg) {
    counter += (long)arg;
    return (int)(long)arg;
}

static void *short_lived(void *arg) {
    (void)arg;
    CHECK(rcl_delegate(&m, inc, (void *)1L) == 1); /* one request: the slot's seq is odd */
    return NULL;
}

/* keeps requests flowing in the same groups, so that answers are buffered around the exits */
static void *steady(void *arg) {
    (void)arg;
    while (!atomic_load(&stop)) {
        CHECK(rcl_delegate(&m, inc, (void *)1000L) == 1000);
        atomic_fetch_add(&steady_calls, 1);
    }
    return NULL;
}

int main(void) {
    pthread_t st[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&st[i], NULL, steady, NULL) == 0);
    for (int w = 0; w < WAVES; w++)
        run_threads(PER_WAVE, short_lived);
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        CHECK(pthread_join(st[i], NULL) == 0);
    long expect = WAVES * PER_WAVE + 1000 * atomic_load(&steady_calls);
    pthread_mutex_lock(&m);
    long got = counter;
    pthread_mutex_unlock(&m);
    if (got != expect) {
        printf("counter %ld, expected %ld\n", got, expect);
        return 1;
    }
    printf("short-lived %d + steady %ld: exact\n", WAVES * PER_WAVE, atomic_load(&steady_calls));
    return 0;
}
