/*
 * rcl/threads.h - librcl for C11 <threads.h> mutexes and condition variables.
 *
 * rcl-rewrite includes it, in place of <rcl/rcl.h>, in a file whose converted sections lock
 * C11 mutexes (mtx_lock, mtx_unlock) or wait on C11 condition variables (cnd_wait,
 * cnd_timedwait).
 *
 * glibc implements <threads.h> on the pthread objects: an mtx_t is a pthread_mutex_t and a
 * cnd_t a pthread_cond_t (same size and alignment; mtx_lock is __pthread_mutex_lock on the
 * same bytes, cnd_wait __pthread_cond_wait), so a converted section delegates on the mtx_t
 * cast to pthread_mutex_t *, and C11 operations elsewhere stay mutually exclusive with the
 * delegated sections exactly as pthread ones do (mixed mode).
 *
 * rcl_cnd_wait, rcl_cnd_timedwait - cnd_wait and cnd_timedwait inside a delegated section:
 * rcl_cond_wait and rcl_cond_timedwait (rcl.h) with C11's results, thrd_success,
 * thrd_timedout (rcl_cnd_timedwait past its time) or thrd_error. Outside a delegated section
 * they are cnd_wait and cnd_timedwait. Any thread may call them.
 *
 * rcl_thrd_result - what mtx_timedlock returns for the error rcl_delegate_timed returned (a
 * converted mtx_timedlock section): thrd_success, thrd_timedout, thrd_busy, thrd_nomem or
 * thrd_error, as glibc maps pthread_mutex_timedlock's.
 */
#ifndef RCL_THREADS_H
#define RCL_THREADS_H

#include <errno.h>
#include <rcl/rcl.h>
#include <threads.h>

_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t) &&
                   _Alignof(mtx_t) == _Alignof(pthread_mutex_t),
               "rcl: mtx_t is not a pthread_mutex_t on this C library");
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t) &&
                   _Alignof(cnd_t) == _Alignof(pthread_cond_t),
               "rcl: cnd_t is not a pthread_cond_t on this C library");

static inline int rcl_cnd_wait(cnd_t *cond, mtx_t *mutex) {
    return rcl_cond_wait((pthread_cond_t *)cond, (pthread_mutex_t *)mutex) == 0 ? thrd_success
                                                                                : thrd_error;
}

static inline int rcl_cnd_timedwait(cnd_t *cond, mtx_t *mutex, const struct timespec *when) {
    int r = rcl_cond_timedwait((pthread_cond_t *)cond, (pthread_mutex_t *)mutex, when);
    return r == 0 ? thrd_success : r == ETIMEDOUT ? thrd_timedout : thrd_error;
}

static inline int rcl_thrd_result(int err) {
    return err == 0           ? thrd_success
           : err == ETIMEDOUT ? thrd_timedout
           : err == EBUSY     ? thrd_busy
           : err == ENOMEM    ? thrd_nomem
                              : thrd_error;
}

#endif
