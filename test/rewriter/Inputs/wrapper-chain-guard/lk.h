/* The same over a pair whose first parameter is not the mutex (reached through its getter),
   locking only when the lock is switched on. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
struct lk { pthread_mutex_t m; int on; };
int lk_os_lock(struct lk *l);
int lk_os_unlock(struct lk *l);
static inline void lk_lock(struct lk *l)
{
    int r = lk_os_lock(l);
    if (r) {
        fprintf(stderr, "lk_lock: %d\n", r);
    }
    assert(r == 0);
}
static inline void lk_unlock(struct lk *l)
{
    int r = lk_os_unlock(l);
    assert(r == 0);
}
