#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static int v;

static void take_b(void) { pthread_mutex_lock(&b); v++; pthread_mutex_unlock(&b); }

void direct(void)
{
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    v++;
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
}

void through_call(void)
{
    pthread_mutex_lock(&a);
    take_b();
    pthread_mutex_unlock(&a);
}

void plain(void)
{
    pthread_mutex_lock(&a);
    v--;
    pthread_mutex_unlock(&a);
}
