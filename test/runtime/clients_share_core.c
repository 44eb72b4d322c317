// Clients sharing a core: 8 client threads confined to one CPU, the server on another. Every
// request is answered exactly once (exact counters, a lost update would show) with the waiting
// that yields a shared core (aware, the default: the clients find their CPU shared, spin about
// what a yield costs them, then yield at every poll), with spinning-only waiting, and in
// adaptive mode; and a client whose yield measurement saw a shared core keeps answering after
// the others are gone (it is alone again: it spins). No timing is asserted.
// REQUIRES: multicore
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_CLIENT_WAIT=spin %t | FileCheck %s
// RUN: env RCL_MODE=adaptive %t | FileCheck %s
// CHECK: clients on CPU [[C:[0-9]+]], server on CPU {{[0-9]+}}
// CHECK: counter 80000 = 8 x 10000, per-thread sums ok
// CHECK: alone again: 20000
#define _GNU_SOURCE
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <sched.h>

#define THREADS 8
#define CALLS   10000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter, per_thread[THREADS];
static cpu_set_t client_cpu;

struct arg {
    long id;
};

static int inc(void *p) {
    struct arg *a = p;
    /* A few microseconds on the server, so that waiting clients outlast their first spin and
     * yield the shared CPU. */
    for (volatile int k = 0; k < 2000; k++)
        ;
    counter++;
    per_thread[a->id]++;
    return (int)(counter & 0x7fffffff);
}

static void *client(void *x) {
    CHECK(pthread_setaffinity_np(pthread_self(), sizeof client_cpu, &client_cpu) == 0);
    struct arg a = {(long)x};
    for (int i = 0; i < CALLS; i++)
        rcl_delegate(&m, inc, &a);
    return NULL;
}

int main(void) {
    cpu_set_t allowed;
    CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    int cpus[2], n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &allowed)) cpus[n++] = c;
    CHECK(n == 2);
    char server[16];
    snprintf(server, sizeof server, "%d", cpus[1]);
    setenv("RCL_SERVER_CPUS", server, 1); /* read at the first delegated call */
    CPU_ZERO(&client_cpu);
    CPU_SET(cpus[0], &client_cpu);
    printf("clients on CPU %d, server on CPU %d\n", cpus[0], cpus[1]);
    run_threads(THREADS, client);
    long sum = 0;
    for (int i = 0; i < THREADS; i++) {
        CHECK(per_thread[i] == CALLS);
        sum += per_thread[i];
    }
    CHECK(sum == counter);
    printf("counter %ld = %d x %d, per-thread sums ok\n", counter, THREADS, CALLS);
    /* The main thread, confined like the clients and now alone on its CPU. */
    CHECK(pthread_setaffinity_np(pthread_self(), sizeof client_cpu, &client_cpu) == 0);
    struct arg a = {0};
    for (int i = 0; i < 2 * CALLS; i++)
        rcl_delegate(&m, inc, &a);
    printf("alone again: %ld\n", per_thread[0] - CALLS);
    return 0;
}
