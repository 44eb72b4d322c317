#include "m.h"
void pa_mutex_lock(pa_mutex *m) {
    pa_assert(m);

    pa_assert_se(pthread_mutex_lock(&m->mutex) == 0);
}

void pa_mutex_unlock(pa_mutex *m) {
    int err;

    pa_assert(m);

    if ((err = pthread_mutex_unlock(&m->mutex)) != 0) {
        fprintf(stderr, "pthread_mutex_unlock() failed: %s\n", strerror(err));
        pa_assert_not_reached();
    }
}
