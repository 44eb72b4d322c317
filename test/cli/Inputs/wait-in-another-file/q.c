#include <stdio.h>
#include <unistd.h>
#include "wait.h"

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcond = PTHREAD_COND_INITIALIZER;
static long qlen, produced, popped, stop;

static void *producer(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&qlock);
        if (stop) {
            pthread_mutex_unlock(&qlock);
            break;
        }
        produced = clamp(produced + 1, 1000000);
        qlen++;
        pthread_cond_signal(&qcond);
        pthread_mutex_unlock(&qlock);
        usleep(100);
    }
    return NULL;
}

/* Waits through the wait helper of wait.c, on the section's own mutex. */
static void timed_pop(int ms)
{
    pthread_mutex_lock(&qlock);
    while (qlen == 0)
        cv_timedwait_ms(&qcond, &qlock, ms);
    qlen--;
    popped++;
    pthread_mutex_unlock(&qlock);
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, producer, NULL);
    for (int i = 0; i < 50; i++)
        timed_pop(10);
    pthread_mutex_lock(&qlock);
    stop = 1;
    pthread_mutex_unlock(&qlock);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("popped %ld, %s\n", popped, produced >= popped ? "ok" : "lost");
    return 0;
}
