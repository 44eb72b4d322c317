#ifndef QUEUE_H
#define QUEUE_H
#include <pthread.h>

struct queue {
    pthread_mutex_t lock;
    int n;
    int items[64];
};

int queue_push(struct queue *q, int v);
int queue_pop(struct queue *q, int *v);
#endif
