/* A converted shared library with a critical section on its own lock. */
#include <pthread.h>

int a_bump(void);

static pthread_mutex_t a_lock = PTHREAD_MUTEX_INITIALIZER;
static int a_count;

int a_bump(void)
{
    int n;
    pthread_mutex_lock(&a_lock);
    n = ++a_count;
    pthread_mutex_unlock(&a_lock);
    return n;
}
