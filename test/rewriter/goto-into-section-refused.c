// Case 2: a label inside the section (a goto could jump into it) and a goto that leaves it
// with the lock held are refused; the file stays byte-identical.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;

int retry(int n)
{
    if (n > 3)
        goto again;
    pthread_mutex_lock(&m);
    v++;
again:
    // CHECK: goto-into-section-refused.c:[[@LINE-1]]:1: rcl: cannot convert critical section: contains a label
    v += n;
    pthread_mutex_unlock(&m);
    return v;
}

int leave_held(int n)
{
    pthread_mutex_lock(&m);
    if (n)
        goto out;
    // CHECK: goto-into-section-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: contains a goto
    v--;
    pthread_mutex_unlock(&m);
out:
    return v;
}
// CHECK: lock 'm': 0 converted, 2 refused
