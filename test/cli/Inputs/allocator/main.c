/* The program's statistics, under a mutex, in a program that brings its own allocator (pool.c
 * defines malloc and free): its sections must never start librcl, which allocates. */
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

void *kept[1000]; /* (a global: the compiler may not drop the allocations) */

int main(void)
{
    for (int i = 0; i < 1000; i++) {
        kept[i] = malloc(32);
        count();
    }
    printf("allocations %ld\n", allocations);
    return 0;
}
