#include "mtx.h"
#include <stdio.h>

static my_mutex *lock;
static long counter;

static void *worker(void *arg)
{
    long timeout = *(long *)arg;
    for (int i = 0; i < 20000; i++) {
        if (timeout) {
            my_mutex_timedlock(lock, timeout);
        }
        else {
            my_mutex_lock(lock);
        }
        counter++;
        my_mutex_unlock(lock);
    }
    return NULL;
}

static int checked(long timeout)
{
    if (my_mutex_timedlock(lock, timeout) != 0)
        return -1;
    counter += 2;
    my_mutex_unlock(lock);
    return 0;
}

/* A section that leaves early: its exit runs once the copy ran it. */
static int early(long timeout, int leave)
{
    if (my_mutex_timedlock(lock, timeout) != 0)
        return -1;
    if (leave) {
        my_mutex_unlock(lock);
        return 1;
    }
    counter += 5;
    my_mutex_unlock(lock);
    return 0;
}

static int counted(void)
{
    if (my_mutex_counted_timedlock(lock, 5000000) != 0)
        return -1;
    counter += 3;
    my_mutex_unlock(lock);
    return 0;
}

static void *contender(void *arg)
{
    (void)arg;
    printf("held: %d %d %d\n", checked(10000), checked(0), early(10000, 1));
    return NULL;
}

int main(void)
{
    long timed = 5000000, untimed = 0;
    pthread_t t[2];
    my_mutex_create(&lock);
    pthread_create(&t[0], NULL, worker, &timed);
    pthread_create(&t[1], NULL, worker, &untimed);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    printf("counter %ld\n", counter);
    /* Held here: the timed calls of another thread time out, and the try fails. */
    my_mutex_lock(lock);
    pthread_create(&t[0], NULL, contender, NULL);
    pthread_join(t[0], NULL);
    my_mutex_unlock(lock);
    printf("free: %d %d %d %d %d, counter %ld\n", checked(1000000), checked(0), counted(),
           early(1000000, 1), early(0, 0), counter);
    return 0;
}
