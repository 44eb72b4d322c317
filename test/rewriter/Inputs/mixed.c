#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, v;

int take(void)
{
    int got;
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&cv, &m);
    got = v;
    pthread_mutex_unlock(&m);
    return got;
}

int put(int x)
{
    pthread_mutex_lock(&m);
    if (ready) {
        pthread_mutex_unlock(&m);
        return -1;
    }
    v = x;
    ready = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&m);
    return 0;
}

void reset(void)
{
    pthread_mutex_lock(&m);
    ready = 0;
    pthread_mutex_unlock(&m);
}

int poll_ready(void)
{
    int r = -1;
    if (pthread_mutex_trylock(&m) == 0) {
        r = ready;
        pthread_mutex_unlock(&m);
    }
    return r;
}
