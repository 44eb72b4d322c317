#include "locks.h"

struct lk L = {0, PTHREAD_MUTEX_INITIALIZER};
long q_released[2];

static pthread_mutex_t item_locks[4] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                        PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static unsigned item_lock_hashpower = 2;
#define hashmask(n) ((1u << (n)) - 1)
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t q_locks[2] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};

void lk_lock(struct lk *l) { pthread_mutex_lock(&l->mutex); }
void lk_unlock(struct lk *l) { pthread_mutex_unlock(&l->mutex); }
void item_lock(uint32_t hv) { pthread_mutex_lock(&item_locks[hv & hashmask(item_lock_hashpower)]); }
void item_unlock(uint32_t hv) { pthread_mutex_unlock(&item_locks[hv & hashmask(item_lock_hashpower)]); }
void STATS_LOCK(void) { pthread_mutex_lock(&stats_lock); }
void STATS_UNLOCK(void) { pthread_mutex_unlock(&stats_lock); }
void q_lock(int q) { pthread_mutex_lock(&q_locks[q]); }
// Does more than unlock: no getter, so other files' sections keep calling the pair.
void q_unlock_counted(int q) {
    q_released[q]++;
    pthread_mutex_unlock(&q_locks[q]);
}
