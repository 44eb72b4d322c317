// A critical section that delegates another critical section of its own lock would
// self-deadlock with a plain mutex: the runtime aborts with a message naming the case.
// RUN: %cc %s -o %t %rcl_libs
// RUN: not --crash %t 2>&1 | FileCheck %s
// CHECK: rcl: rcl_delegate: a critical section of lock 0x{{[0-9a-f]+}} delegates another critical section of the same lock
#include "Inputs/harness.h"
#include <rcl/rcl.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int inner(void *arg) { return (int)(long)arg; }
static int outer(void *arg) { return rcl_delegate(&m, inner, arg); }

int main(void) {
    rcl_delegate(&m, outer, (void *)1);
    printf("not reached\n");
    return 0;
}
