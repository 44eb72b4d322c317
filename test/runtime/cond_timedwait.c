// rcl_cond_timedwait inside a delegated critical section: ETIMEDOUT when nobody signals (and
// the mutex is held again on return: the section goes on to modify protected state), 0 when
// signalled by a thread holding no lock, by a local critical section, and by a delegated one;
// the server keeps serving other sections meanwhile. Also rcl_cond_clockwait.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s
// CHECK: timeout: ETIMEDOUT, state 1
// CHECK: clockwait timeout: ETIMEDOUT
// CHECK: signalled by nobody-holding: 0
// CHECK: signalled by local: 0
// CHECK: signalled by delegated: 0
// CHECK: other sections during the waits: ok
#include "Inputs/harness.h"
#include <errno.h>
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, other = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int state, flag; /* protected by m */
static atomic_int waiting;
static long other_count; /* protected by other */

static struct timespec deadline_ms(clockid_t clk, long ms) {
    struct timespec ts;
    clock_gettime(clk, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    return ts;
}

static int wait_timeout(void *arg) {
    (void)arg;
    struct timespec ts = deadline_ms(CLOCK_REALTIME, 50);
    int r = rcl_cond_timedwait(&c, &m, &ts);
    state++; /* we hold m again */
    return r;
}

static int clockwait_timeout(void *arg) {
    (void)arg;
    struct timespec ts = deadline_ms(CLOCK_MONOTONIC, 30);
    return rcl_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &ts);
}

/* Wait (up to 60 s) until someone sets flag. */
static int wait_flag(void *arg) {
    (void)arg;
    struct timespec ts = deadline_ms(CLOCK_REALTIME, 60000);
    int r = 0;
    atomic_store(&waiting, 1);
    while (!flag && r == 0)
        r = rcl_cond_timedwait(&c, &m, &ts);
    flag = 0;
    return r;
}

static int set_flag(void *arg) {
    (void)arg;
    flag = 1;
    pthread_cond_signal(&c);
    return 0;
}

static int bump_other(void *arg) {
    (void)arg;
    return (int)++other_count;
}

static void *waiter(void *arg) {
    *(int *)arg = rcl_delegate(&m, wait_flag, NULL);
    return NULL;
}

/* Start a delegated wait_flag, wait until it waits, run 1000 other sections, then signal. */
static int signalled_by(int how) {
    int result = -1;
    pthread_t t;
    atomic_store(&waiting, 0);
    CHECK(pthread_create(&t, NULL, waiter, &result) == 0);
    while (!atomic_load(&waiting))
        usleep(100);
    usleep(2000);
    for (int i = 0; i < 1000; i++)
        rcl_delegate(&other, bump_other, NULL);
    if (how == 0) { /* a thread holding no lock: the flag write still needs m, then signal */
        pthread_mutex_lock(&m);
        flag = 1;
        pthread_mutex_unlock(&m);
        pthread_cond_signal(&c);
    } else if (how == 1) {
        pthread_mutex_lock(&m);
        set_flag(NULL);
        pthread_mutex_unlock(&m);
    } else {
        rcl_delegate(&m, set_flag, NULL);
    }
    CHECK(pthread_join(t, NULL) == 0);
    return result;
}

int main(void) {
    int r = rcl_delegate(&m, wait_timeout, NULL);
    printf("timeout: %s, state %d\n", r == ETIMEDOUT ? "ETIMEDOUT" : strerror(r), state);
    r = rcl_delegate(&m, clockwait_timeout, NULL);
    printf("clockwait timeout: %s\n", r == ETIMEDOUT ? "ETIMEDOUT" : strerror(r));
    printf("signalled by nobody-holding: %d\n", signalled_by(0));
    printf("signalled by local: %d\n", signalled_by(1));
    printf("signalled by delegated: %d\n", signalled_by(2));
    CHECK(other_count == 3000);
    printf("other sections during the waits: ok\n");
    return 0;
}
