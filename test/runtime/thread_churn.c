// Thread churn: 10,000 short-lived threads (at most 64 alive at once) each delegate a few
// critical sections and exit. Totals are exact, mailbox slots are reused (the server scans
// at most a few chunks), and nothing leaks (the ASan build of this test checks that).
// RUN: %cc %rcl_internal %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// CHECK: 10000 threads, counter exact, slots reused
#include "Inputs/harness.h"
#include "internal.h"
#include <rcl/rcl.h>

#define THREADS 10000
#define WAVE 64
#define PER_THREAD 3
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static int inc(void *arg) {
    (void)arg;
    return (int)++counter;
}

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < PER_THREAD; i++)
        rcl_delegate(&m, inc, NULL);
    return NULL;
}


int main(void) {
    for (int done = 0; done < THREADS; done += WAVE)
        run_threads(done + WAVE <= THREADS ? WAVE : THREADS - done, worker);
    CHECK(counter == (long)THREADS * PER_THREAD);
    unsigned slots = rcl__server_slots(rcl__server(0));
    CHECK(slots <= 4 * WAVE); /* without reuse this would be 10000 */
    printf("%d threads, counter exact, slots reused\n", THREADS);
    return 0;
}
