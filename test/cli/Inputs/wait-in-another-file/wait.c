/* A thin portability layer, in its own file (no lock call: rcl-cc does not parse it in the
   first pass). */
#include <time.h>
#include "wait.h"

int cv_timedwait_ms(pthread_cond_t *c, pthread_mutex_t *m, int ms)
{
    struct timespec abs;
    clock_gettime(CLOCK_REALTIME, &abs);
    abs.tv_nsec += (long)ms * 1000000L;
    abs.tv_sec += abs.tv_nsec / 1000000000L;
    abs.tv_nsec %= 1000000000L;
    return pthread_cond_timedwait(c, m, &abs);
}

long clamp(long v, long hi) { return v > hi ? hi : v; }
