// A critical section that blocks unexpectedly (no rcl_cond_wait) does not stall its server:
//  - pipe: a section of lock A blocks in read() on an empty pipe. Meanwhile thousands of
//    sections of lock B (same server) complete -- the pipe is written only after they have --
//    and a second section of A waits (A is held). Then A's section finishes and its client
//    gets the byte it read; the second A section runs after it.
//  - sleep: a section of A sleeps in 1 ms steps until B's thousands are done.
// The blocking detector hands the polling role over; without it this test hangs.
// RUN: %cc %s -o %t %rcl_libs %rcl_internal
// RUN: %t pipe | FileCheck %s --check-prefix=PIPE
// RUN: %t sleep | FileCheck %s --check-prefix=SLEEP
// RUN: env RCL_MODE=local %t sleep | FileCheck %s --check-prefix=SLEEP
// PIPE: A read 'x' after 5000 sections of B; second A section ran after it
// SLEEP: A slept until 5000 sections of B were done
#include "Inputs/harness.h"
#include "internal.h"
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define NB 5000
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static int fds[2];
static atomic_int a_started, b_done;
static int a_finished; /* protected by a */
static long b_count;   /* protected by b */
static int second_saw; /* protected by a */

static int read_pipe(void *arg) {
    (void)arg;
    atomic_store(&a_started, 1);
    char ch = 0;
    CHECK(read(fds[0], &ch, 1) == 1);
    a_finished = 1;
    return ch;
}

static int sleep_until_b(void *arg) {
    (void)arg;
    atomic_store(&a_started, 1);
    while (!atomic_load(&b_done))
        usleep(1000);
    a_finished = 1;
    return 1;
}

static int second_a(void *arg) {
    (void)arg;
    second_saw = a_finished;
    return 0;
}

static int bump_b(void *arg) {
    (void)arg;
    return (int)++b_count;
}

static int a_result;
static void *a_client(void *arg) {
    a_result = rcl_delegate(&a, arg ? read_pipe : sleep_until_b, NULL);
    return NULL;
}
static void *second_client(void *arg) {
    (void)arg;
    rcl_delegate(&a, second_a, NULL);
    return NULL;
}

int main(int argc, char **argv) {
    CHECK(argc == 2);
    int pipe_mode = strcmp(argv[1], "pipe") == 0;
    CHECK(pipe(fds) == 0);
    CHECK(rcl_lock_server(&a) == rcl_lock_server(&b)); /* one server by default */
    pthread_t ta, t2;
    CHECK(pthread_create(&ta, NULL, a_client, pipe_mode ? (void *)1 : NULL) == 0);
    while (!atomic_load(&a_started))
        usleep(100);
    if (pipe_mode) CHECK(pthread_create(&t2, NULL, second_client, NULL) == 0);
    for (int i = 0; i < NB; i++)
        rcl_delegate(&b, bump_b, NULL);
    atomic_store(&b_done, 1);
    if (pipe_mode) {
        CHECK(write(fds[1], "x", 1) == 1);
        CHECK(pthread_join(t2, NULL) == 0);
    }
    CHECK(pthread_join(ta, NULL) == 0);
    CHECK(b_count == NB);
    if (pipe_mode) {
        CHECK(second_saw == 1); /* it ran after A's blocked section, never during it */
        printf("A read '%c' after %ld sections of B; second A section ran after it\n", a_result,
               b_count);
    } else {
        printf("A slept until %ld sections of B were done\n", b_count);
    }
    if (rcl_mode() == RCL_MODE_DELEGATE) {
        struct rcl_server *s = rcl__server(0);
        fprintf(stderr, "detected hand-overs: %lu, workers %u\n",
                (unsigned long)atomic_load(&s->detected), atomic_load(&s->nworkers));
        CHECK(atomic_load(&s->detected) >= 1);
    }
    return 0;
}
