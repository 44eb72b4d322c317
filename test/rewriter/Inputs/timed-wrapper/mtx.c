#include "mtx.h"
#include <errno.h>
#include <stdlib.h>
#include <time.h>

struct my_mutex {
    pthread_mutex_t mutex;
    long timed_calls;
};

static long now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

int my_mutex_create(my_mutex **m)
{
    *m = calloc(1, sizeof **m);
    return *m ? pthread_mutex_init(&(*m)->mutex, NULL) : ENOMEM;
}

int my_mutex_lock(my_mutex *m)
{
    return pthread_mutex_lock(&m->mutex);
}

int my_mutex_timedlock(my_mutex *m, long timeout_us)
{
    int rv;
    if (timeout_us <= 0) {
        rv = pthread_mutex_trylock(&m->mutex);
        if (rv) {
            if (rv == EBUSY)
                rv = MY_TIMEUP;
        }
    }
    else {
        struct timespec abstime;
        timeout_us += now_us();
        abstime.tv_sec = timeout_us / 1000000;
        abstime.tv_nsec = timeout_us % 1000000 * 1000;
        rv = pthread_mutex_timedlock(&m->mutex, &abstime);
        if (rv) {
            if (rv == ETIMEDOUT)
                rv = MY_TIMEUP;
        }
    }
    return rv;
}

/* Counts under the lock: what it does after locking is not only its result. */
int my_mutex_counted_timedlock(my_mutex *m, long timeout_us)
{
    struct timespec abstime;
    int rv;
    timeout_us += now_us();
    abstime.tv_sec = timeout_us / 1000000;
    abstime.tv_nsec = timeout_us % 1000000 * 1000;
    rv = pthread_mutex_timedlock(&m->mutex, &abstime);
    if (rv == 0)
        m->timed_calls++;
    return rv;
}

int my_mutex_unlock(my_mutex *m)
{
    return pthread_mutex_unlock(&m->mutex);
}
