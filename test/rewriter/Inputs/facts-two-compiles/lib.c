#include "lk.h"
void lk_lock(struct lk *l) { pthread_mutex_lock(&l->m); }
void lk_unlock(struct lk *l) { pthread_mutex_unlock(&l->m); }
