#include "k5.h"
struct cache { k5_mutex_t lock; long hits, misses; };
static struct cache C = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
static void lookup(int i)
{
    k5_mutex_lock(&C.lock);
    if (i % 3)
        C.hits++;
    else
        C.misses++;
    k5_mutex_unlock(&C.lock);
}
static long soft;
static void soft_bump(void)
{
    soft_mutex_lock(&C.lock);
    soft++;
    soft_mutex_unlock(&C.lock);
}
static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        lookup(i);
        if (i % 10 == 0) soft_bump();
    }
    return 0;
}
int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    printf("hits=%ld misses=%ld soft=%ld\n", C.hits, C.misses, soft);
    return 0;
}
