/* One hot lock taken at three call sites: a plain section (converts), a getter that returns
   holding the lock (refused; the busiest site), a trylock (left as is). */
#include <pthread.h>

static pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER;
static long table[64];

void add(int k)
{
    pthread_mutex_lock(&hot);
    table[k & 63]++;
    pthread_mutex_unlock(&hot);
}

long *lookup(int k)
{
    pthread_mutex_lock(&hot);
    return &table[k & 63];
}

void release_lookup(void)
{
    pthread_mutex_unlock(&hot);
}

int try_add(int k)
{
    if (pthread_mutex_trylock(&hot) != 0) return 0;
    table[k & 63]++;
    pthread_mutex_unlock(&hot);
    return 1;
}
