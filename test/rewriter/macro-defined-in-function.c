// A macro defined inside a function, before a critical section that uses it (unbound's
// daemon/worker.c: `#define TA_RESPONSE_MAX_TAGS 32` at the top of the function): the
// outlined function is written before the enclosing function, where the macro is not defined
// yet (or, redefined, means something else), so such a section is refused. In the corpus the
// rewritten file did not compile and rcl-cc fell back to the original. A section of the same
// function that does not use the macro converts.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s < %t.c
// RUN: %cc -Wall -Wextra -Werror %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -Wall -Wextra -Werror %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

#define LIMIT 4
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int tags[64], used, calls;

int fill(void)
{
#define MAX_TAGS 32 /* max number of tags */
#undef LIMIT
#define LIMIT 8
    int n = 0;
    // ERR: macro-defined-in-function.c:[[@LINE+1]]:5: rcl: cannot convert critical section: uses macro 'MAX_TAGS', defined or undefined inside the function before the critical section (line 23)
    pthread_mutex_lock(&m);
    for (n = 0; n < MAX_TAGS; n++) tags[n] = n;
    pthread_mutex_unlock(&m);
    // ERR: macro-defined-in-function.c:[[@LINE+1]]:5: rcl: cannot convert critical section: uses macro 'LIMIT', defined or undefined inside the function before the critical section (line 24)
    pthread_mutex_lock(&m);
    used = LIMIT;
    pthread_mutex_unlock(&m);
    // CHECK: rcl_delegate(&m, rcl_cs_fill_
    pthread_mutex_lock(&m);
    calls++; /* MAX_TAGS in a comment is no use */
    pthread_mutex_unlock(&m);
    return n;
}

int main(void)
{
    printf("%d %d %d %d\n", fill(), used, calls, tags[31]);
    return 0;
}
