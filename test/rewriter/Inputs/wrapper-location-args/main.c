/* Lock wrappers that take the caller's __FILE__ and __LINE__ through macros (pigz's possess /
   release; shared/cases/wrapper_with_location_args): two threads, exact counts. */
#include <pthread.h>
#include <stdio.h>
#include "lk.h"
static lock counter = { PTHREAD_MUTEX_INITIALIZER, 0 };
static lock pool[2] = { { PTHREAD_MUTEX_INITIALIZER, 0 }, { PTHREAD_MUTEX_INITIALIZER, 0 } };
static void *work(void *arg)
{
    int which = arg != NULL;
    for (int i = 0; i < 100000; i++) {
        possess(&counter);
        counter.value++;
        release(&counter);
    }
    possess(&pool[which]);
    pool[which].value += 10;
    release(&pool[which + 0]); /* the same mutex, but not the same expression: refused */
    return NULL;
}
int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, i ? &t[0] : NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("%ld %ld %ld\n", counter.value, pool[0].value, pool[1].value);
    return counter.value != 200000;
}
