// errno read or written inside a section converts: the runtime copies the client's errno to the
// server before the section and the server's back after it, so the section and the code after
// it see errno as they did (open() failing inside, strtol's ERANGE read after the unlock). Was
// refused with "uses errno, which is per thread".
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.local.out
// RUN: %t.rcl > %t.delegate.out
// RUN: diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=adaptive RCL_ADAPTIVE_FLIP=1 %t.rcl > %t.adaptive.out
// RUN: diff %t.orig.out %t.adaptive.out
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int nopen, saved;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_main_1(void *rcl_arg)
// CHECK:     (*rcl_ctx->fd) = open("/", O_WRONLY);
// CHECK: static RCL_SECTION_INLINE int rcl_cs_main_2(void *rcl_arg)
// CHECK:     (*rcl_ctx->v) = strtol("99999999999999999999999", NULL, 10);
// CHECK-NEXT: saved = errno;
// CHECK: int main(void)
// CHECK: rcl_delegate_ctx(&m, rcl_cs_main_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK: rcl_delegate_ctx(&m, rcl_cs_main_2, &rcl_ctx, sizeof rcl_ctx);
int main(void)
{
    int fd;
    pthread_mutex_lock(&m);
    fd = open("/", O_WRONLY);
    if (fd >= 0) nopen++;
    pthread_mutex_unlock(&m);
    if (fd < 0) printf("open failed: %s\n", strerror(errno));
    long v;
    errno = 0;
    pthread_mutex_lock(&m);
    v = strtol("99999999999999999999999", NULL, 10);
    saved = errno;
    pthread_mutex_unlock(&m);
    printf("strtol errno==ERANGE: %d %d (v=%ld)\n", errno == ERANGE, saved == ERANGE, v);
    return 0;
}
// SUMMARY: rcl: summary: 2 converted, 0 refused
