/* No mutex: the rewriter does not parse it, its rwlock acquisitions are counted all the same. */
#include <pthread.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long c;

long get(void)
{
    pthread_rwlock_rdlock(&rw);
    long v = c;
    pthread_rwlock_unlock(&rw);
    return v;
}
