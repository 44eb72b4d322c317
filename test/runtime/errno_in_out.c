// errno goes with the request: a section sees its caller's errno, and the caller sees the
// errno the section (or a libc call inside it) left, as if it had run in the caller. A
// handed-back or local run needs nothing. Without the transfer the caller sees a stale value.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s
// CHECK: open: Is a directory; strtol ERANGE: 1; seen inside: 42; threads ok: 1
#include "Inputs/harness.h"
#include <errno.h>
#include <fcntl.h>
#include <rcl/rcl.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int open_dir(void *arg) {
    return open(arg, O_WRONLY);
}
static int range(void *arg) {
    *(long *)arg = strtol("99999999999999999999999", NULL, 10);
    return 0;
}
static int read_errno(void *arg) {
    (void)arg;
    return errno;
}
static int set_errno(void *arg) {
    errno = (int)(long)arg;
    return 0;
}
static void *thread(void *arg) {
    long id = (long)arg + 1;
    for (int i = 0; i < 2000; i++) {
        errno = 0;
        rcl_delegate(&m, set_errno, (void *)(id * 1000 + i));
        CHECK(errno == id * 1000 + i);
    }
    return NULL;
}
int main(void) {
    errno = 0;
    int fd = rcl_delegate(&m, open_dir, "/");
    CHECK(fd < 0);
    const char *msg = strerror(errno);
    long v;
    errno = 0;
    rcl_delegate(&m, range, &v);
    int erange = errno == ERANGE;
    errno = 42;
    int inside = rcl_delegate(&m, read_errno, NULL);
    run_threads(3, thread);
    printf("open: %s; strtol ERANGE: %d; seen inside: %d; threads ok: 1\n", msg, erange, inside);
    return 0;
}
