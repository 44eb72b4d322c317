#include "counter.h"

#include <pthread.h>
#include <stdio.h>

static void *work(void *arg)
{
    for (int i = 0; i < 1000; i++)
        counter_add(1);
    return arg;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    long total = counter_add(0);
    printf("total %ld\n", total);
    return total == 6000 ? 0 : 1;
}
