// A logger whose state is per thread (memcached's LOGGER_LOG: pthread_getspecific).
#include "shared.h"
#include <stdio.h>

static pthread_key_t logger_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static void make_key(void) { pthread_key_create(&logger_key, NULL); }

void logger_register(long *counter) {
    pthread_once(&once, make_key);
    pthread_setspecific(logger_key, counter);
}

void log_event(int what) {
    long *mine = pthread_getspecific(logger_key); // NULL on a thread that never registered
    *mine += what;
}
