/* The hot lock, and its plain section (converts). */
#include <pthread.h>

pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER;
long table[64];

void add(int k)
{
    pthread_mutex_lock(&hot);
    table[k & 63]++;
    pthread_mutex_unlock(&hot);
}
