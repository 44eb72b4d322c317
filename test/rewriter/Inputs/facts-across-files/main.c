#include "shared.h"
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counted;

static void *worker(void *a) {
    long *logged = a;
    logger_register(logged);
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&m);
        store_one(1);
        pthread_mutex_unlock(&m);
        pthread_mutex_lock(&m);
        count_one(2);
        counted++;
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

int main(void) {
    pthread_t t[2];
    long logged[2] = {0, 0};
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, &logged[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("stored=%ld counted=%ld logged=%ld %ld\n", stored, counted, logged[0], logged[1]);
    return 0;
}
