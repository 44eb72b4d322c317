/* Lock and unlock each wrapped in #ifdef (from /work/shared/cases/ifdef_around_lock.c). */
#include <pthread.h>
#define WITH_THREADING 1
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
long counter;
void inc(void)
{
#ifdef WITH_THREADING
	pthread_mutex_lock(&m);
#endif
	counter++;
#ifdef WITH_THREADING
	pthread_mutex_unlock(&m);
#endif
}
