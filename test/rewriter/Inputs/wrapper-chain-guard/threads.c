/* The support library: whether the thread library is loaded is found once and remembered. */
#include "k5.h"
static volatile int flag_loaded = -1;
static void loaded_test_aux(void)
{
    if (flag_loaded == -1)
        flag_loaded = 1;
    else
        flag_loaded = 0;
}
static pthread_once_t loaded_test_once = PTHREAD_ONCE_INIT;
int threads_loaded(void)
{
    int x = flag_loaded;
    if (x != -1)
        return x;
    if (pthread_once(&loaded_test_once, loaded_test_aux) != 0 ||
        pthread_once(&loaded_test_once, loaded_test_aux) != 0 || flag_loaded < 0) {
        flag_loaded = 0;
        return 0;
    }
    return flag_loaded;
}
int k5_os_mutex_lock(k5_mutex_t *m)
{
    if (threads_loaded())
        return pthread_mutex_lock(m);
    else
        return 0;
}
int k5_os_mutex_unlock(k5_mutex_t *m)
{
    if (threads_loaded())
        return pthread_mutex_unlock(m);
    else
        return 0;
}
