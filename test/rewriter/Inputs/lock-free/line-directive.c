/* Generated code: a #line names another file, the text is still this file's. */
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n;
#line 1 "grammar.y"
void action(void)
{
    pthread_mutex_lock(&m);
    n++;
    pthread_mutex_unlock(&m);
}
