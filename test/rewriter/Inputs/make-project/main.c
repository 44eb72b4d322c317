#include <stdio.h>
#include "queue.h"

static struct queue q = {PTHREAD_MUTEX_INITIALIZER, 0, {0}};
static long sum;
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    int base = *(int *)arg;
    for (int i = 0; i < 1000; i++) {
        int v;
        if (queue_push(&q, base + i) == 0 && queue_pop(&q, &v) == 0) {
            pthread_mutex_lock(&sum_lock);
            sum += v;
            pthread_mutex_unlock(&sum_lock);
        }
    }
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    int base[4];
    for (int i = 0; i < 4; i++) {
        base[i] = i * 1000;
        pthread_create(&t[i], NULL, worker, &base[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    printf("sum %ld, left %d\n", sum, q.n);
    return 0;
}
