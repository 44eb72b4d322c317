// A cycle of nested delegation between servers (server 0 waits on 1 while 1 waits on 0) is
// detected at run time and the process aborts with a message, instead of hanging.
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_SERVERS=2 not --crash %t 2>&1 | FileCheck %s
// CHECK: rcl: deadlock: server 1 waits on server 0, which (through nested delegation) waits on server 1
#include "Inputs/harness.h"
#include <rcl/rcl.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, a2 = PTHREAD_MUTEX_INITIALIZER,
                       b = PTHREAD_MUTEX_INITIALIZER;

static int cs_a2(void *arg) { return (int)(long)arg; }
static int cs_b(void *arg) { return rcl_delegate(&a2, cs_a2, arg); }
static int cs_a(void *arg) { return rcl_delegate(&b, cs_b, arg); }

int main(void) {
    CHECK(rcl_server_count() == 2);
    CHECK(rcl_lock_assign(&a, 0) == 0 && rcl_lock_assign(&a2, 0) == 0);
    CHECK(rcl_lock_assign(&b, 1) == 0);
    rcl_delegate(&a, cs_a, (void *)1);
    printf("not reached\n");
    return 0;
}
