/*
 * cond.c - condition waits inside critical sections.
 *
 * The condition variable and the mutex stay the program's own pthread objects: on a servicing
 * thread, the mutex of a delegated critical section is really held by that thread (server.c
 * runs a request only under its mutex), so pthread_cond_wait's contract holds as is. The only
 * thing to add is to hand the server's polling role to a spare servicing thread before the
 * thread blocks (pool.c), so that the server goes on serving -- including the critical
 * sections that will signal.
 */
#include "internal.h"

static inline void before_wait(void) {
    struct rcl_worker *w = rcl_self_worker;
    if (w) rcl_pool_before_block(w);
}

int rcl_cond_wait(pthread_cond_t *cond, pthread_mutex_t *lock) {
    before_wait();
    return pthread_cond_wait(cond, lock);
}

int rcl_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *lock,
                       const struct timespec *abstime) {
    before_wait();
    return pthread_cond_timedwait(cond, lock, abstime);
}

int rcl_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *lock, clockid_t clock,
                       const struct timespec *abstime) {
    before_wait();
    return pthread_cond_clockwait(cond, lock, clock, abstime);
}
