/* A header with a locking inline function: its section is the header's, not its includers'. */
#include <pthread.h>
static pthread_mutex_t header_lock = PTHREAD_MUTEX_INITIALIZER;
static long header_count;
static inline void header_bump(void)
{
    pthread_mutex_lock(&header_lock);
    header_count++;
    pthread_mutex_unlock(&header_lock);
}
