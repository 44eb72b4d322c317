/* The busiest call site of the hot lock: a getter that returns holding it (refused). */
#include <pthread.h>

extern pthread_mutex_t hot;
extern long table[64];

long *lookup(int k)
{
    pthread_mutex_lock(&hot);
    return &table[k & 63];
}

void release_lookup(void)
{
    pthread_mutex_unlock(&hot);
}
