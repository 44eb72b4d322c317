/* The program's statistics, under a mutex, in a program that brings its own allocator (pool.c
 * defines malloc and free): librcl would allocate on a delegation's way, inside the allocator. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long allocations;

static void count(void)
{
    pthread_mutex_lock(&stats_lock);
    allocations++;
    pthread_mutex_unlock(&stats_lock);
}

int main(void)
{
    for (int i = 0; i < 1000; i++) {
        void *p = malloc(32);
        count();
        free(p);
    }
    printf("allocations %ld\n", allocations);
    return 0;
}
