// A program built with -Werror=declaration-after-statement (krb5's gss-sample, in the corpus):
// the rewritten file includes rcl.h, whose inline fast path declared a variable after a
// statement, so the rewritten file did not compile and rcl-cc compiled the original. rcl.h and
// the rewritten code keep declarations first.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags -Wdeclaration-after-statement > %t.c
// RUN: FileCheck %s < %t.c
// RUN: %cc -std=gnu89 -Wall -Werror=declaration-after-statement %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -std=gnu89 -Wall -Werror=declaration-after-statement %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;

static long add(long n)
{
    long seen;
    // CHECK: rcl_delegate(&m, rcl_cs_add_
    pthread_mutex_lock(&m);
    total += n;
    seen = total;
    pthread_mutex_unlock(&m);
    return seen;
}

int main(void)
{
    long i, last = 0;
    for (i = 1; i <= 100; i++)
        last = add(i);
    printf("%ld\n", last);
    return 0;
}
