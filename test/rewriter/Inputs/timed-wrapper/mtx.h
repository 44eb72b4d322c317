/* An APR-like mutex library: the mutex is an object, its wrappers take it; the timed one takes a
 * relative timeout in microseconds, tries once when it is not positive, and maps the errors. */
#include <pthread.h>
typedef struct my_mutex my_mutex;
int my_mutex_create(my_mutex **m);
int my_mutex_lock(my_mutex *m);
int my_mutex_unlock(my_mutex *m);
int my_mutex_timedlock(my_mutex *m, long timeout_us);
int my_mutex_counted_timedlock(my_mutex *m, long timeout_us);
#define MY_TIMEUP 70007
