/* Another program's stubs of the pair (memcached's testapp.c stubs STATS_LOCK/STATS_UNLOCK):
   the same names, doing nothing. */
#include "locks.h"

void lk_lock(struct lk *l) { (void)l; }
void lk_unlock(struct lk *l) { (void)l; }
