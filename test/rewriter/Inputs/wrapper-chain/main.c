#include <pthread.h>
#include <stdio.h>
#include "lk.h"
static struct lk L = { PTHREAD_MUTEX_INITIALIZER, 0 }, M = { PTHREAD_MUTEX_INITIALIZER, 0 };
static long counter, other;
static void bump(void)
{
    my_lock(&L);
    counter++;
    my_unlock(&L);
}
static void bump_counted(void)
{
    my_lock2(&M);
    other++;
    my_unlock2(&M);
}
static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        bump();
        if (i % 4 == 0) bump_counted();
    }
    return 0;
}
int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    printf("counter=%ld other=%ld released=%ld\n", counter, other, M.released);
    return 0;
}
