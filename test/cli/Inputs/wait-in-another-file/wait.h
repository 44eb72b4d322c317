#include <pthread.h>
int cv_timedwait_ms(pthread_cond_t *c, pthread_mutex_t *m, int ms);
long clamp(long v, long hi);
