// A delegated critical section of lock B locks lock A with plain pthread_mutex_lock (a nested
// pair, or a callee in a file that was not rewritten), while A is itself delegated to the same
// server. The server must not still hold A from an earlier request of the same pass, or it
// deadlocks on itself (found by converting memcached).
//
// To make the pass deterministic, one thread owns three mailboxes (internal interface): the
// first request (lock C) sleeps 50 ms on the server while the requests for A and then B are
// posted behind it, so the server meets C, A, B in one pass. alarm() turns a hang into a failure.
// RUN: %cc %rcl_internal %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// CHECK: answered: C A B; a=2
#include "Inputs/harness.h"
#include "internal.h"
#include <rcl/rcl.h>
#include <stdbool.h>
#include <unistd.h>


static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER,
                       c = PTHREAD_MUTEX_INITIALIZER;
static long na;

static int cs_c(void *arg) {
    (void)arg;
    usleep(50 * 1000);
    return 0;
}

static int cs_a(void *arg) {
    (void)arg;
    return (int)++na;
}

static int cs_b(void *arg) {
    (void)arg;
    pthread_mutex_lock(&a); /* plain lock of a delegated mutex, inside B's section */
    na++;
    pthread_mutex_unlock(&a);
    return 0;
}

int main(void) {
    alarm(30);
    CHECK(rcl_server_count() == 1);
    struct rcl_mailbox *mc = rcl__mailbox_open(0), *ma = rcl__mailbox_open(0),
                       *mb = rcl__mailbox_open(0);
    rcl__mailbox_post(mc, &c, cs_c, NULL);
    usleep(10 * 1000); /* the server is inside C's section now */
    rcl__mailbox_post(ma, &a, cs_a, NULL);
    rcl__mailbox_post(mb, &b, cs_b, NULL);
    while (!rcl__mailbox_answered(mc) || !rcl__mailbox_answered(ma) || !rcl__mailbox_answered(mb))
        usleep(1000);
    printf("answered: C A B; a=%ld\n", na);
    rcl__mailbox_close(mc);
    rcl__mailbox_close(ma);
    rcl__mailbox_close(mb);
    return 0;
}
