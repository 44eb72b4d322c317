// Bounded buffer: P producers and C consumers, both sides delegated critical sections that
// wait on "not full"/"not empty" condition variables. Every item is consumed exactly once and
// the run ends. Variants: rcl_cond_wait (explicit hand-over), plain pthread_cond_wait inside the
// delegated sections (the blocking detector hands the polling role over), local producers
// signalling delegated consumers (mixed mode), one producer and one consumer with a pool of
// one servicing thread (the waiting section hands over to nobody; the local producer's signal
// resumes it), and RCL_MODE=local.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t rcl 4 4 20000 | FileCheck %s --check-prefix=RCL
// RUN: env RCL_SPIN_NS=0 %t rcl 3 2 5000 | FileCheck %s --check-prefix=SMALL
// RUN: %t pthread 2 2 300 | FileCheck %s --check-prefix=PLAIN
// RUN: %t mixed 3 3 10000 | FileCheck %s --check-prefix=MIXED
// RUN: env RCL_POOL_MAX=1 %t mixed 1 1 2000 | FileCheck %s --check-prefix=ONE
// RUN: env RCL_MODE=local %t rcl 4 4 20000 | FileCheck %s --check-prefix=RCL
// RUN: env RCL_MODE=adaptive RCL_ADAPTIVE_FLIP=3 %t rcl 4 4 20000 | FileCheck %s --check-prefix=RCL
// RUN: env RCL_MODE=adaptive %t rcl 4 4 20000 | FileCheck %s --check-prefix=RCL
// RUN: env RCL_MODE=adaptive RCL_ADAPTIVE_FLIP=2 %t mixed 3 3 10000 | FileCheck %s --check-prefix=MIXED
// RCL: consumed 80000 items exactly once
// SMALL: consumed 15000 items exactly once
// PLAIN: consumed 600 items exactly once
// MIXED: consumed 30000 items exactly once
// ONE: consumed 2000 items exactly once
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <string.h>

#define CAP 8

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static long buf[CAP]; /* protected by m */
static int head, count;
static long remaining_to_take; /* items consumers still have to take */
static unsigned char *seen;    /* seen[item]: times consumed (consumers' CS) */
static long nitems;
static int nprod, ncons, per_producer;
static int use_rcl_wait = 1, local_producers;

static int wait_on(pthread_cond_t *c) {
    return use_rcl_wait ? rcl_cond_wait(c, &m) : pthread_cond_wait(c, &m);
}

static int put(void *arg) {
    long item = *(long *)arg;
    while (count == CAP)
        wait_on(&not_full);
    buf[(head + count) % CAP] = item;
    count++;
    pthread_cond_signal(&not_empty);
    return 0;
}

/* Returns 1 and stores the item, or 0 when every item has been taken. */
static int take(void *arg) {
    while (count == 0 && remaining_to_take > 0)
        wait_on(&not_empty);
    if (remaining_to_take == 0) return 0;
    long item = buf[head];
    head = (head + 1) % CAP;
    count--;
    remaining_to_take--;
    seen[item]++;
    if (remaining_to_take == 0) pthread_cond_broadcast(&not_empty); /* release the others */
    pthread_cond_signal(&not_full);
    *(long *)arg = item;
    return 1;
}

static void *producer(void *arg) {
    long id = (long)arg;
    for (long i = 0; i < per_producer; i++) {
        long item = id * per_producer + i;
        if (local_producers) { /* a local critical section of the same mutex */
            pthread_mutex_lock(&m);
            while (count == CAP)
                pthread_cond_wait(&not_full, &m);
            buf[(head + count) % CAP] = item;
            count++;
            pthread_cond_signal(&not_empty);
            pthread_mutex_unlock(&m);
        } else {
            rcl_delegate(&m, put, &item);
        }
    }
    return NULL;
}

static void *consumer(void *arg) {
    (void)arg;
    long item;
    while (rcl_delegate(&m, take, &item))
        CHECK(item >= 0 && item < nitems);
    return NULL;
}

static void *role(void *arg) {
    long i = (long)arg;
    return i < nprod ? producer(arg) : consumer(arg);
}

int main(int argc, char **argv) {
    CHECK(argc == 5);
    use_rcl_wait = strcmp(argv[1], "pthread") != 0;
    local_producers = strcmp(argv[1], "mixed") == 0;
    nprod = atoi(argv[2]);
    ncons = atoi(argv[3]);
    per_producer = atoi(argv[4]);
    nitems = (long)nprod * per_producer;
    remaining_to_take = nitems;
    seen = calloc((size_t)nitems, 1);
    CHECK(seen != NULL);
    run_threads(nprod + ncons, role);
    for (long i = 0; i < nitems; i++)
        if (seen[i] != 1) {
            fprintf(stderr, "item %ld consumed %d times\n", i, seen[i]);
            return 1;
        }
    CHECK(count == 0);
    free(seen);
    printf("consumed %ld items exactly once\n", nitems);
    return 0;
}
