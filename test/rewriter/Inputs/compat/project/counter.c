#include "counter.h"

#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

long counter_add(long n)
{
    long now;
    pthread_mutex_lock(&lock);
    total += n;
    now = total;
    pthread_mutex_unlock(&lock);
    return now;
}

long counter_value(void)
{
    long now;
    pthread_mutex_lock(&lock);
    now = total;
    pthread_mutex_unlock(&lock);
    return now;
}

const char *counter_where(void)
{
    static char where[256];
    snprintf(where, sizeof where, "%s:%d", __FILE__, __LINE__);
    return where;
}
