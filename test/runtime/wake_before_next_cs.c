// A client answered early in a server pass is woken before the server runs the next critical
// section of that pass, not at the end of the pass: the next section may wait for something
// the parked client does once awake (memcached's LRU maintainer waits on a worker's mutex).
//
// Deterministic set-up with the internal interface: slot 0 (main) holds the server 50 ms in
// section C; meanwhile thread A (slot 1, RCL_SPIN_NS=0 so it parks at once) posts a quick
// section, and once A is parked main posts section W (slot 2), which waits until A has
// returned from rcl_delegate. The server answers A, then runs W: W completes only if A was woken first.
// RUN: %cc %rcl_internal %s -o %t %rcl_libs
// RUN: env RCL_SPIN_NS=0 %t | FileCheck %s
// CHECK: A woke before W finished (W waited {{[0-9]+}} ms)
#include "Inputs/harness.h"
#include "internal.h"
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>


static pthread_mutex_t la = PTHREAD_MUTEX_INITIALIZER, lc = PTHREAD_MUTEX_INITIALIZER,
                       lw = PTHREAD_MUTEX_INITIALIZER;
static atomic_int a_go, a_returned;
static int w_result = -2; /* written by W on the server, read after W's answer */

static long ms_since(const struct timespec *t0);

/* Spins, not sleeps: a section that blocks hands the polling to another servicing thread,
 * which would answer A at once and leave nothing to test. */
static int cs_c(void *arg) {
    (void)arg;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (ms_since(&t0) < 50)
        ;
    return 0;
}
static int cs_quick(void *arg) { return (int)(long)arg; }

static long ms_since(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Waits for A at most 500 ms: A's safety-net timeout alone (1 ms, then 2, 4, ...) would also
 * wake it within that, so the bound is checked against the time A needs, below. */
static int cs_wait_for_a(void *arg) {
    (void)arg;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!atomic_load(&a_returned) && ms_since(&t0) < 500)
        ;
    w_result = atomic_load(&a_returned) ? (int)ms_since(&t0) : -1;
    return 0;
}

static void *thread_a(void *arg) {
    (void)arg;
    while (!atomic_load(&a_go))
        usleep(100);
    CHECK(rcl_delegate(&la, cs_quick, (void *)7) == 7);
    atomic_store(&a_returned, 1);
    return NULL;
}

int main(void) {
    alarm(30);
    CHECK(rcl_server_count() == 1);
    struct rcl_mailbox *mc = rcl__mailbox_open(0); /* slot 0 */
    pthread_t a;
    CHECK(pthread_create(&a, NULL, thread_a, NULL) == 0);
    /* A registers (slot 1) on its first delegation, after slot 0 and before slot 2. */
    rcl__mailbox_post(mc, &lc, cs_c, NULL);
    usleep(10 * 1000); /* the server is inside C now */
    atomic_store(&a_go, 1);
    /* A has posted and parks behind C: it counts itself in nparked after posting (wait.c).
     * Waiting for that, not for a fixed time, keeps a loaded machine from posting W first
     * (should C end before A posts, A returns unparked and W finds it returned). */
    struct rcl_server *s = rcl__server(0);
    while (atomic_load(&s->nparked) == 0 && !atomic_load(&a_returned))
        usleep(100);
    usleep(10 * 1000); /* past the park's last check of its answer */
    struct rcl_mailbox *mw = rcl__mailbox_open(0); /* slot 2 */
    rcl__mailbox_post(mw, &lw, cs_wait_for_a, NULL);
    while (!rcl__mailbox_answered(mw))
        usleep(1000);
    CHECK(pthread_join(a, NULL) == 0);
    CHECK(w_result >= 0);
    printf("A woke before W finished (W waited %d ms)\n", w_result);
    rcl__mailbox_close(mc);
    rcl__mailbox_close(mw);
    return 0;
}
