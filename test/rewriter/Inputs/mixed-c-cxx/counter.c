/* The C half of a mixed project: a counter behind a mutex, which rcl-cc converts. */
#include <pthread.h>

#include "counter.h"

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter_value;

void counter_add(long n) {
    pthread_mutex_lock(&counter_lock);
    counter_value += n;
    pthread_mutex_unlock(&counter_lock);
}

long counter_get(void) {
    pthread_mutex_lock(&counter_lock);
    long v = counter_value;
    pthread_mutex_unlock(&counter_lock);
    return v;
}
