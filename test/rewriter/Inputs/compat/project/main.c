#include "counter.h"

#include <pthread.h>
#include <stdio.h>

static void *work(void *arg)
{
    for (long i = 1; i <= 1000; i++)
        counter_add(square(i % 3));
    return arg;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("%ld %s\n", counter_value(), counter_where());
    return counter_value() == 3332 ? 0 : 1;
}
