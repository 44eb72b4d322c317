#include "lk.h"
static struct lk On = { PTHREAD_MUTEX_INITIALIZER, 1 }, Off = { PTHREAD_MUTEX_INITIALIZER, 0 };
static long n, single;
static void bump(struct lk *l, long *v)
{
    lk_lock(l);
    (*v)++;
    lk_unlock(l);
}
static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) bump(&On, &n);
    return 0;
}
int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    for (int i = 0; i < 500; i++) bump(&Off, &single); /* one thread: no lock needed */
    printf("n=%ld single=%ld\n", n, single);
    return 0;
}
