// Case 4: a getter that returns with the lock held and its release elsewhere: refused (the
// runtime keeps such sections mutually exclusive through the mutex), file byte-identical.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

struct table {
    pthread_mutex_t lock;
    int rows;
};

int *table_acquire(struct table *t)
{
    pthread_mutex_lock(&t->lock);
    // CHECK: lock-held-across-functions-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: the lock is still held at the end of its block
    return &t->rows;
}

void table_release(struct table *t)
{
    t->rows++;
    pthread_mutex_unlock(&t->lock);
}

int early(struct table *t, int n)
{
    pthread_mutex_lock(&t->lock);
    if (n < 0)
        return -1;
    // CHECK: lock-held-across-functions-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: returns while holding the lock
    t->rows = n;
    pthread_mutex_unlock(&t->lock);
    return 0;
}
// CHECK: lock 't->lock': 0 converted, 2 refused
