#include <string.h>
#include "m.h"
static pa_mutex M = { PTHREAD_MUTEX_INITIALIZER };
static pa_mutex *Which = &M;
static long n;
static void bump(void)
{
    pa_mutex_lock(Which);
    n++;
    pa_mutex_unlock(Which);
}
static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) bump();
    return 0;
}
int main(int argc, char **argv)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    printf("n=%ld\n", n);
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "null") == 0) { /* the wrappers' check fails: abort */
        Which = NULL;
        bump();
    }
    return 0;
}
