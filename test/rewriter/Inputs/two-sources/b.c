#include <pthread.h>

static pthread_mutex_t b_lock = PTHREAD_MUTEX_INITIALIZER;
static int b_count;

int bump_b(void)
{
    int n;
    pthread_mutex_lock(&b_lock);
    n = ++b_count;
    pthread_mutex_unlock(&b_lock);
    return n;
}
