/*
 * cond.c - condition waits inside critical sections (rcl_cond_wait and friends).
 */
#include "internal.h"

int rcl_cond_wait(pthread_cond_t *cond, pthread_mutex_t *lock) {
    return pthread_cond_wait(cond, lock);
}

int rcl_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *lock,
                       const struct timespec *abstime) {
    return pthread_cond_timedwait(cond, lock, abstime);
}

int rcl_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *lock, clockid_t clock,
                       const struct timespec *abstime) {
    return pthread_cond_clockwait(cond, lock, clock, abstime);
}
