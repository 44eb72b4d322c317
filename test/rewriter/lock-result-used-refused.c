// Case 6: the lock call's result used as a value where the rewriter cannot give it the value of
// a successful lock: stored in a file-scope variable, checked by a branch that holds a label.
// Refused rather than silently dropping the check; file byte-identical. (`if
// (pthread_mutex_lock(&m) != 0) fail;`, `rc = pthread_mutex_lock(&m); if (rc) fail;` with a
// local rc, and `if ((rc = pthread_mutex_lock(&m)) != 0) fail;` convert with a note:
// lock-result-checked.c, lock-result-assigned.c.)
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;

// Stored where the call site could not set it (a file-scope variable).
int status;
int stored_global(void)
{
    status = pthread_mutex_lock(&m);
    // CHECK: lock-result-used-refused.c:[[@LINE-1]]:14: rcl: cannot convert critical section: the result of pthread_mutex_lock is used
    v += status;
    pthread_mutex_unlock(&m);
    return status;
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
