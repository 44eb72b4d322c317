/* A program in one file, for the commands that take one source (standard input). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void add(long n)
{
    pthread_mutex_lock(&lock);
    total += n;
    pthread_mutex_unlock(&lock);
}

int main(void)
{
    for (long i = 1; i <= 10; i++)
        add(i);
    printf("%ld\n", total);
    return total == 55 ? 0 : 1;
}
