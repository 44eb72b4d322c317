#include "lk.h"
#include <stdio.h>
static struct lk L = { PTHREAD_MUTEX_INITIALIZER, 0 };
static void bump(void)
{
    lk_lock(&L);
    L.n++;
    lk_unlock(&L);
}
static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) bump();
    return NULL;
}
int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("%ld\n", L.n);
    return 0;
}
