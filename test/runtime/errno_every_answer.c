// Every answer is the one of the request just posted: its return value and its errno (small,
// 0xffff and above, negative), for 4 clients x 1000 requests each -- including each thread's
// FIRST call, whose mailbox registration runs library calls that set errno (the section saw
// ENOENT instead of its caller's errno before delegate.c saved it first), and with clients
// that park at once. The alarm ends a hang.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_SPIN_NS=0 %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s
// CHECK: 4 clients x 1000 requests: every answer its own
#include "Inputs/harness.h"
#include <errno.h>
#include <rcl/rcl.h>
#include <unistd.h>

#define CLIENTS 4
#define CALLS   1000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long served; /* protected by m */

struct req {
    long id, k;
};

static int errno_for(long id, long k) {
    switch (k % 5) {
    case 0:
        return 0;
    case 1:
        return (int)(k % 200);
    case 2:
        return 0xfffe;
    case 3:
        return 0xffff + (int)k; /* does not fit the answer word */
    default:
        return -(int)(id + 1);
    }
}

static int cs(void *arg) {
    const struct req *r = arg;
    if (errno != (int)(r->k + 1)) { /* the caller's errno came along */
        fprintf(stderr, "client %ld request %ld: errno %d in the section\n", r->id, r->k, errno);
        exit(1);
    }
    served++;
    errno = errno_for(r->id, r->k);
    return (int)(r->id * 100000 + r->k);
}

static void *client(void *arg) {
    long id = (long)arg;
    for (long k = 0; k < CALLS; k++) {
        struct req r = {id, k};
        errno = (int)(k + 1);
        int ret = rcl_delegate(&m, cs, &r);
        int err = errno;
        if (ret != (int)(id * 100000 + k) || err != errno_for(id, k)) {
            fprintf(stderr, "client %ld request %ld: ret %d errno %d\n", id, k, ret, err);
            exit(1);
        }
    }
    return NULL;
}

int main(void) {
    alarm(120);
    run_threads(CLIENTS, client);
    CHECK(served == CLIENTS * CALLS);
    printf("%d clients x %d requests: every answer its own\n", CLIENTS, CALLS);
    return 0;
}
