// A critical section that calls pthread_create runs on a servicing thread, so the new thread
// inherits the server's CPU pin. When that thread delegates, the runtime moves it off the
// server CPUs (once, with a warning) instead of leaving it to compete with its own server.
// (memcached's start_lru_maintainer_thread does exactly this.)
// REQUIRES: multicore
// RUN: %cc %s -o %t %rcl_libs %rcl_internal
// RUN: %t 2>&1 | FileCheck %s
// CHECK: child started pinned to server CPUs only: yes
// CHECK: rcl: a thread confined to server CPU(s) {{.*}} delegates (created inside a delegated
// CHECK-SAME: critical section?); moved to CPUs
// CHECK: child after delegating: off the server CPUs
#include "Inputs/harness.h"
#include "internal.h"
#include <rcl/rcl.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static pthread_t child;

static int server_cpus_only(void) {
    cpu_set_t cur;
    CHECK(pthread_getaffinity_np(pthread_self(), sizeof cur, &cur) == 0);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &cur)) {
            int is_server = 0;
            for (int i = 0; i < rcl_rt.pl.nservers; i++)
                is_server |= rcl_rt.pl.server_cpus[i] == c;
            if (!is_server) return 0;
        }
    return 1;
}

static int bump(void *arg) {
    (void)arg;
    return (int)++counter;
}

static void *child_main(void *arg) {
    (void)arg;
    printf("child started pinned to server CPUs only: %s\n", server_cpus_only() ? "yes" : "no");
    fflush(stdout);
    rcl_delegate(&m, bump, NULL);
    printf("child after delegating: %s\n",
           server_cpus_only() ? "still on server CPUs" : "off the server CPUs");
    return NULL;
}

static int start_child(void *arg) { /* a critical section that creates a thread */
    (void)arg;
    return pthread_create(&child, NULL, child_main, NULL);
}

int main(void) {
    CHECK(rcl_server_count() == 1 && rcl_rt.pl.server_cpus[0] >= 0); /* pinned server */
    CHECK(rcl_delegate(&m, start_child, NULL) == 0);
    CHECK(pthread_join(child, NULL) == 0);
    CHECK(counter == 1);
    return 0;
}
