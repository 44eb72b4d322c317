/* A mutex section (converted), two spinlock acquisitions and three rwlock ones (left alone). */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t s;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long a, b, c;
#define WITH_READ(l) pthread_rwlock_rdlock(l)

void f(void)
{
    pthread_mutex_lock(&m);
    a++;
    pthread_mutex_unlock(&m);
    pthread_spin_lock(&s);
    b++;
    pthread_spin_unlock(&s);
    if (pthread_spin_trylock(&s) == 0) pthread_spin_unlock(&s);
    pthread_rwlock_wrlock(&rw);
    c++;
    pthread_rwlock_unlock(&rw);
    WITH_READ(&rw);
    pthread_rwlock_unlock(&rw);
    if (pthread_rwlock_tryrdlock(&rw) == 0) pthread_rwlock_unlock(&rw);
}
