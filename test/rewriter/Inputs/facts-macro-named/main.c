#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
unsigned long my_hash(const char *s);
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char name[16];
static long copied;
static void set_name(const char *s)
{
    pthread_mutex_lock(&m);
    copied += (long)(my_hash(s) % 7);
    pthread_mutex_unlock(&m);
}
static void *worker(void *arg)
{
    for (int i = 0; i < 10000; i++) set_name(arg);
    return NULL;
}
int main(void)
{
    pthread_t t[2];
    pthread_create(&t[0], NULL, worker, "first");
    pthread_create(&t[1], NULL, worker, "second-longer-than-sixteen");
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    printf("%ld %d\n", copied, name[0] == 'f' || name[0] == 's');
    return 0;
}
