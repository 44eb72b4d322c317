// Case 21: a worker loop, `lock; for (;;) { while (empty) wait; take; unlock; work; lock; }
// unlock;` (7 sections over the real programs tried). No block holds one lock-to-unlock
// stretch, so `rcl convert` leaves it as written; the reason says what it is and that rcl-cc's
// copy rotates it (worker-loop-rotated.c converts this shape there). File byte for byte.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static int queue[64], count, stop;

static void work(int item) { (void)item; }

void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    for (;;) {
        while (count == 0 && !stop)
            pthread_cond_wait(&ready, &m);
        if (stop)
            break;
        int item = queue[--count];
        pthread_mutex_unlock(&m);
        work(item);
        pthread_mutex_lock(&m);
    }
    pthread_mutex_unlock(&m);
    return 0;
}
// CHECK: worker-loop-refused.c:19:5: rcl: cannot convert critical section: the lock is released and taken again in each iteration of the loop at line 20 (a worker loop: lock; loop { ...; unlock; work; lock; } unlock)
// CHECK: worker-loop-refused.c:28:9: rcl: cannot convert critical section: the lock is released and taken again in each iteration of the loop at line 20
// CHECK: rcl: summary: 0 converted, 2 refused
