/* Prints __FILE__ from inside a critical section and from outside one. */
#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int main(void)
{
    pthread_mutex_lock(&m);
    printf("%s\n", __FILE__);
    pthread_mutex_unlock(&m);
    printf("%s\n", __FILE__);
    return 0;
}
