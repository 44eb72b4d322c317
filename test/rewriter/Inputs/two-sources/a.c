#include <pthread.h>
#include <stdio.h>

int bump_b(void);
static pthread_mutex_t a_lock = PTHREAD_MUTEX_INITIALIZER;
static int a_count;

int main(void)
{
    pthread_mutex_lock(&a_lock);
    a_count++;
    pthread_mutex_unlock(&a_lock);
    printf("%d %d\n", a_count, bump_b());
    return 0;
}
