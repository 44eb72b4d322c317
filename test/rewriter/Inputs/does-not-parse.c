#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;
void f(void)
{
    pthread_mutex_lock(&m);
    v++ this is not C;
    pthread_mutex_unlock(&m);
}
