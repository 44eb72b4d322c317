#include <pthread.h>
#include <stdio.h>
#include "hook.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;
static void (*hook)(long *) = add_two; /* its address taken: a possible target of hook */

static void *worker(void *arg)
{
    int i;
    for (i = 0; i < 10000; i++) {
        pthread_mutex_lock(&m);
        hook(&total);
        pthread_mutex_unlock(&m);
    }
    return arg;
}

int main(void)
{
    pthread_t t[2];
    int i;
    for (i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("total %ld\n", total);
    return 0;
}
