#include <string.h>
#include "m.h"
static tor_mutex_t M = { PTHREAD_MUTEX_INITIALIZER };
static tor_mutex_t *Which = &M;
static long n;
static void bump(void)
{
    tor_mutex_acquire(Which);
    n++;
    tor_mutex_release(Which);
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
