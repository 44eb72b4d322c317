#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
typedef struct { pthread_mutex_t lock; } xmlMutex, *xmlMutexPtr;
static int libxml_is_threaded = 1;
void xmlMutexLock(xmlMutexPtr tok) {
    if (tok == NULL)
        return;
    if (libxml_is_threaded != 0)
        pthread_mutex_lock(&tok->lock);
}
void xmlMutexUnlock(xmlMutexPtr tok) {
    if (tok == NULL)
        return;
    if (libxml_is_threaded != 0)
        pthread_mutex_unlock(&tok->lock);
}
