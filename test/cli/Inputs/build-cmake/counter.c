#include "counter.h"

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

long counter_add(long n)
{
    long now;
    pthread_mutex_lock(&lock);
    total += scale(n);
    now = total;
    pthread_mutex_unlock(&lock);
    return now;
}
