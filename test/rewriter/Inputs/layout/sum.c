/* The layout tests' program (layout-*.test): a converted section, and __FILE__ and __LINE__ after
   it and in main, which the converted program prints as the original does. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void add(long n)
{
    pthread_mutex_lock(&lock);
    total += n;
    pthread_mutex_unlock(&lock);
    printf("%s:%d\n", __FILE__, __LINE__);
}

int main(void)
{
    add(1L);
    add(2L);
    printf("%ld %s:%d\n", total, __FILE__, __LINE__);
    return total == 3 ? 0 : 1;
}
