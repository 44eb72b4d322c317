#include "lk.h"
int lk_os_lock(struct lk *l)
{
    if (l->on)
        return pthread_mutex_lock(&l->m);
    return 0;
}
int lk_os_unlock(struct lk *l)
{
    if (l->on)
        return pthread_mutex_unlock(&l->m);
    return 0;
}
