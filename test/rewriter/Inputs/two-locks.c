#include <pthread.h>
#include <stdio.h>

struct bucket {
    pthread_mutex_t mutex;
    int hits;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t item_locks[4] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                        PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static int cached, items[4];

static void touch_cache(void)
{
    pthread_mutex_lock(&cache_lock);
    cached++;
    pthread_mutex_unlock(&cache_lock);
}

static void touch_item(unsigned hv)
{
    pthread_mutex_lock(&item_locks[hv % 4]);
    items[hv % 4]++;
    pthread_mutex_unlock(&item_locks[hv % 4]);
}

static void touch_bucket(struct bucket *b)
{
    pthread_mutex_lock(&b->mutex);
    b->hits++;
    pthread_mutex_unlock(&b->mutex);
}

int main(void)
{
    struct bucket b = {PTHREAD_MUTEX_INITIALIZER, 0};
    touch_cache();
    touch_item(5);
    touch_bucket(&b);
    printf("%d %d %d\n", cached, items[1], b.hits);
    return 0;
}
