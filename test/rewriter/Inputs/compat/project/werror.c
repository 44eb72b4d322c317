/* A section whose context is an int and a long (padded: -Wpadded warns about rcl's code). */
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

long add_scaled(int scale, long n)
{
    long now;
    pthread_mutex_lock(&lock);
    total += scale * n;
    now = total;
    pthread_mutex_unlock(&lock);
    return now;
}
