// Nested delegation: a CS delegates to a lock on the same server (runs inline) and to a lock
// on another server (delegated there). RCL_MODE=local gives identical results.
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_SERVERS=2 %t | FileCheck %s
// RUN: env RCL_SERVERS=1 %t | FileCheck %s
// RUN: env RCL_SERVERS=2 RCL_MODE=local %t | FileCheck %s
// RUN: env RCL_SERVERS=2 RCL_MODE=adaptive RCL_ADAPTIVE_FLIP=2 %t | FileCheck %s
// CHECK: outer=12000 same=12000 other=12000 sum=72000
#include "Inputs/harness.h"
#include <rcl/rcl.h>

static pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER, same = PTHREAD_MUTEX_INITIALIZER,
                       other = PTHREAD_MUTEX_INITIALIZER;
static long n_outer, n_same, n_other;

static int cs_same(void *arg) { return (int)(++n_same + (long)arg); }
static int cs_other(void *arg) { return (int)(++n_other + (long)arg); }

static int cs_outer(void *arg) {
    (void)arg;
    n_outer++;
    int a = rcl_delegate(&same, cs_same, (void *)0);
    int b = rcl_delegate(&other, cs_other, (void *)0);
    return a > 0 && b > 0;
}

static long sums[3];
static void *worker(void *arg) {
    long id = (long)arg;
    for (int i = 0; i < 4000; i++)
        CHECK(rcl_delegate(&outer, cs_outer, NULL) == 1);
    sums[id] = 4000;
    return NULL;
}

int main(void) {
    if (rcl_server_count() == 2) {
        CHECK(rcl_lock_assign(&outer, 0) == 0);
        CHECK(rcl_lock_assign(&same, 0) == 0);
        CHECK(rcl_lock_assign(&other, 1) == 0);
    }
    run_threads(3, worker);
    printf("outer=%ld same=%ld other=%ld sum=%ld\n", n_outer, n_same, n_other,
           2 * (n_outer + n_same + n_other));
    return 0;
}
