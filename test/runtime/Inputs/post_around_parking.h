/* One client delegating at random 0-30 us gaps while RCL_SERVER_SPIN_NS=0 makes its server park
 * after 64-128 idle passes, so that many posts land while the server parks (post_races_park.c,
 * membarrier_fails.c). Nobody else could wake the server: a lost post leaves it asleep and the
 * client waiting for ever, and the watchdog fails the test. Include after harness.h and
 * internal.h. */
#ifndef RCL_TEST_POST_AROUND_PARKING_H
#define RCL_TEST_POST_AROUND_PARKING_H

#include <rcl/rcl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t parking_lock = PTHREAD_MUTEX_INITIALIZER;
static long parking_calls; /* sections run, under parking_lock */

static int parking_inc(void *arg) {
    (void)arg;
    parking_calls++;
    return 0;
}

static void parking_watchdog(int sig) {
    (void)sig;
    static const char msg[] = "a delegated call never returned (a lost post)\n";
    write(2, msg, sizeof msg - 1);
    _exit(1);
}

/* The watchdog: 60 s for the whole test. */
static void parking_watchdog_start(void) {
    signal(SIGALRM, parking_watchdog);
    alarm(60);
}

/* n delegated calls of parking_inc on parking_lock, each after a random pause of 0-30 us. */
static void post_around_parking(int n, unsigned seed) {
    for (int i = 0; i < n; i++) {
        uint64_t until = rcl_now_ns() + rand_r(&seed) % 30000;
        while (rcl_now_ns() < until)
            rcl_cpu_relax();
        rcl_delegate(&parking_lock, parking_inc, NULL);
    }
}

#endif
