// Case 6: the lock call's result is stored or otherwise used as a value. A delegated lock
// cannot fail that way, so the section is refused rather than silently dropping the check; file
// byte-identical. (A plain `if (pthread_mutex_lock(&m) != 0) fail;` converts with a note:
// lock-result-checked.c.)
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;

int stored(void)
{
    int err = pthread_mutex_lock(&m);
    // CHECK: lock-result-used-refused.c:[[@LINE-1]]:15: rcl: cannot convert critical section: the result of pthread_mutex_lock is used
    v += err;
    pthread_mutex_unlock(&m);
    return err;
}

// The failure branch holds a label that a goto elsewhere reaches: it cannot be dropped.
int labelled(int n)
{
    if (n < 0)
        goto bad;
    if (pthread_mutex_lock(&m) != 0) {
    bad:
        return -1;
    }
    // CHECK: lock-result-used-refused.c:[[@LINE-4]]:9: rcl: cannot convert critical section: the result of pthread_mutex_lock is used
    v++;
    pthread_mutex_unlock(&m);
    return 0;
}
