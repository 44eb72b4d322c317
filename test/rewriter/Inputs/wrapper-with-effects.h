/* Lock wrappers with effects, `static inline` in a header (jemalloc's mutex.h style). */
#include <pthread.h>

struct acct { pthread_mutex_t m; long count, waits, releases, balance; };
static __thread long my_attempts;

static inline void acct_lock(struct acct *a)
{
    my_attempts++;
    pthread_mutex_lock(&a->m);
    a->count++;
}

static inline void acct_unlock(struct acct *a)
{
    a->waits++;
    pthread_mutex_unlock(&a->m);
    __atomic_fetch_add(&a->releases, 1, __ATOMIC_RELAXED);
}
