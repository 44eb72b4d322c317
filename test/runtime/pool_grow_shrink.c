// The pool of servicing threads grows on demand and shrinks when idle: 12 delegated sections
// wait on a condition at once (each needs its own servicing thread, plus one to poll); after
// they are released and the pool has idled for RCL_POOL_IDLE_MS, only RCL_POOL_SPARE spares
// remain besides the poller. With RCL_POOL_MAX below the need, waiters that find the pool
// exhausted still finish once a local thread signals (the server polls again when one returns).
// RUN: %cc %s -o %t %rcl_libs %rcl_internal
// RUN: env RCL_POOL_IDLE_MS=50 RCL_POOL_SPARE=2 %t 12 | FileCheck %s
// RUN: env RCL_POOL_IDLE_MS=50 RCL_POOL_SPARE=0 RCL_POOL_MAX=4 %t 12 | FileCheck %s --check-prefix=CAPPED
// CHECK: grew: yes
// CHECK: released 12 waiters
// CHECK: shrank to 3 workers
// CAPPED: grew: capped at 4
// CAPPED: released 12 waiters
// CAPPED: shrank to 1 workers
#include "Inputs/harness.h"
#include "internal.h"
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int open_gate; /* protected by m */
static int nwaiting;  /* protected by m */

static int wait_gate(void *arg) {
    (void)arg;
    nwaiting++;
    while (!open_gate)
        rcl_cond_wait(&go, &m);
    nwaiting--;
    return 0;
}

static void *waiter(void *arg) {
    (void)arg;
    rcl_delegate(&m, wait_gate, NULL);
    return NULL;
}

int main(int argc, char **argv) {
    CHECK(argc == 2);
    int n = atoi(argv[1]);
    struct rcl_server *s = rcl__server(0);
    int max = rcl_rt.cfg.pool_max;
    pthread_t *t = calloc((size_t)n, sizeof *t);
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, waiter, NULL) == 0);
    /* Wait until every waiter waits (or as many as the capped pool can run). */
    int expect = n < max ? n : max;
    for (;;) {
        pthread_mutex_lock(&m);
        int w = nwaiting;
        pthread_mutex_unlock(&m);
        if (w >= expect) break;
        usleep(1000);
    }
    unsigned grown = atomic_load(&s->nworkers);
    if (max > n)
        printf("grew: %s\n", grown >= (unsigned)n + 1 ? "yes" : "no");
    else
        printf("grew: capped at %u\n", grown);
    pthread_mutex_lock(&m);
    open_gate = 1;
    pthread_cond_broadcast(&go);
    pthread_mutex_unlock(&m);
    for (int i = 0; i < n; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    free(t);
    printf("released %d waiters\n", n);
    /* Idle: spares beyond RCL_POOL_SPARE exit after RCL_POOL_IDLE_MS (poll for up to 20 s). */
    unsigned want = 1 + (unsigned)rcl_rt.cfg.pool_spare;
    for (int i = 0; i < 2000 && atomic_load(&s->nworkers) > want; i++)
        usleep(10000);
    printf("shrank to %u workers\n", atomic_load(&s->nworkers));
    return 0;
}
