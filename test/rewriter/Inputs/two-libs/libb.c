/* A converted shared library with a critical section on its own lock. */
#include <pthread.h>

int b_bump(void);

static pthread_mutex_t b_lock = PTHREAD_MUTEX_INITIALIZER;
static int b_count;

int b_bump(void)
{
    int n;
    pthread_mutex_lock(&b_lock);
    n = ++b_count;
    pthread_mutex_unlock(&b_lock);
    return n;
}
