// Lock-to-server assignment: by default by address hash (stable), explicitly by API, and by
// name with RCL_LOCK_SERVERS (global mutexes found through the dynamic symbol table).
// RUN: %cc %s -o %t %rcl_libs -rdynamic
// RUN: env RCL_SERVERS=4 %t | FileCheck %s
// RUN: env RCL_SERVERS=4 RCL_LOCK_SERVERS=hot_a=2,hot_b=3 %t named | FileCheck %s --check-prefix=NAMED
// RUN: env RCL_SERVERS=4 RCL_LOCK_SERVERS=no_such_lock=1,hot_a=9 %t 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: api: a->1 b->1 bad=EINVAL
// CHECK: ran on assigned servers
// NAMED: named: hot_a->2 hot_b->3
// BAD: rcl: RCL_LOCK_SERVERS: no global mutex named 'no_such_lock' in the dynamic symbol table
// BAD: rcl: RCL_LOCK_SERVERS: 'hot_a=9': expected name=server with server from 0 to 3; ignored
#include "Inputs/harness.h"
#include <errno.h>
#include <rcl/rcl.h>
#include <string.h>

pthread_mutex_t hot_a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t hot_b = PTHREAD_MUTEX_INITIALIZER;

static int where(void *arg) {
    (void)arg;
    return rcl_on_server();
}

int main(int argc, char **argv) {
    CHECK(rcl_server_count() == 4);
    if (argc > 1 && !strcmp(argv[1], "named")) {
        printf("named: hot_a->%d hot_b->%d\n", rcl_lock_server(&hot_a), rcl_lock_server(&hot_b));
        return 0;
    }
    int h = rcl_lock_server(&hot_a);
    CHECK(h >= 0 && h < 4 && h == rcl_lock_server(&hot_a));
    CHECK(rcl_lock_assign(&hot_a, 1) == 0);
    CHECK(rcl_lock_assign(&hot_b, 1) == 0);
    int bad = rcl_lock_assign(&hot_b, 4);
    printf("api: a->%d b->%d bad=%s\n", rcl_lock_server(&hot_a), rcl_lock_server(&hot_b),
           bad == EINVAL ? "EINVAL" : "?");
    CHECK(rcl_delegate(&hot_a, where, NULL) == 1);
    CHECK(rcl_delegate(&hot_b, where, NULL) == 1);
    printf("ran on assigned servers\n");
    return 0;
}
