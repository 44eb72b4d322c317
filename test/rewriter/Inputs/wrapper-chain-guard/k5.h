/* MIT Kerberos's locking (include/k5-thread.h, util/support/threads.c), cut down: the program
   calls static inline wrappers of the header, which store and assert the result of the support
   library's wrappers, which lock only when the thread library is loaded. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
typedef pthread_mutex_t k5_mutex_t;
int threads_loaded(void);
int k5_os_mutex_lock(k5_mutex_t *m);
int k5_os_mutex_unlock(k5_mutex_t *m);
static inline void k5_mutex_lock(k5_mutex_t *m)
{
    int r = k5_os_mutex_lock(m);
#ifndef NDEBUG
    if (r != 0) {
        fprintf(stderr, "k5_mutex_lock: Received error %d (%s)\n", r, strerror(r));
    }
#endif
    assert(r == 0);
}
static inline void k5_mutex_unlock(k5_mutex_t *m)
{
    int r = k5_os_mutex_unlock(m);
#ifndef NDEBUG
    if (r != 0) {
        fprintf(stderr, "k5_mutex_unlock: Received error %d (%s)\n", r, strerror(r));
    }
#endif
    assert(r == 0);
}
/* Reports a failure and goes on without the lock: its report is no check (nothing ends the
   program after it), so its sections stay as written. */
static inline void soft_mutex_lock(k5_mutex_t *m)
{
    int r = k5_os_mutex_lock(m);
    if (r != 0) fprintf(stderr, "soft_mutex_lock: %d\n", r);
}
static inline void soft_mutex_unlock(k5_mutex_t *m)
{
    int r = k5_os_mutex_unlock(m);
    assert(r == 0);
}
