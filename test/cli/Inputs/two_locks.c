/* Two locks of very different heat, for rcl profile + rcl convert: worker threads spend most
 * of their time holding hot_lock and rarely take cold_lock. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t hot_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cold_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long hot_data[64];
static unsigned long cold_count;

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 3000; i++) {
        pthread_mutex_lock(&hot_lock);
        for (int j = 0; j < 2000; j++)
            hot_data[j % 64] += (unsigned long)j;
        pthread_mutex_unlock(&hot_lock);
        if (i % 100 == 0) {
            pthread_mutex_lock(&cold_lock);
            cold_count++;
            pthread_mutex_unlock(&cold_lock);
        }
    }
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("cold %lu\n", cold_count);
    return cold_count != 60;
}
