#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
typedef struct { pthread_mutex_t lock; } xmlMutex, *xmlMutexPtr;
void xmlMutexLock(xmlMutexPtr tok);
void xmlMutexUnlock(xmlMutexPtr tok);
static xmlMutexPtr m;
static long counter;
void bump(void) {
    xmlMutexLock(m);
    counter++;
    xmlMutexUnlock(m);
}
int main(void) {
    bump();
    m = malloc(sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    for (int i = 0; i < 1000; i++) bump();
    printf("%ld\n", counter);
    return 0;
}
