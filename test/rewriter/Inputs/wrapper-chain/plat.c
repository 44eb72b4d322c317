/* The platform layer: the only file that calls pthread, checking each result through a helper
   that reports and exits (not declared noreturn). */
#include <stdio.h>
#include <stdlib.h>
#include "lk.h"
static void fail(int err, const char *what)
{
    fprintf(stderr, "%s: %d\n", what, err);
    exit(err);
}
void plat_lock(struct lk *l)
{
    int ret = pthread_mutex_lock(&l->m);
    if (ret) fail(ret, "lock");
}
void plat_unlock(struct lk *l)
{
    int ret = pthread_mutex_unlock(&l->m);
    if (ret) fail(ret, "unlock");
}
/* Counts its releases: the pair plat_lock/plat_unlock_counted gets no getter. */
void plat_unlock_counted(struct lk *l)
{
    l->released++;
    pthread_mutex_unlock(&l->m);
}
