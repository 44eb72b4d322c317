#include "queue.h"

int queue_push(struct queue *q, int v)
{
    pthread_mutex_lock(&q->lock);
    if (q->n == 64) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    q->items[q->n++] = v;
    pthread_mutex_unlock(&q->lock);
    return 0;
}

int queue_pop(struct queue *q, int *v)
{
    pthread_mutex_lock(&q->lock);
    if (q->n == 0) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    *v = q->items[--q->n];
    pthread_mutex_unlock(&q->lock);
    return 0;
}
