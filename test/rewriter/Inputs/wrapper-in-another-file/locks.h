// Lock wrappers defined in locks.c and called from main.c (wrapper-in-another-file.test).
#include <pthread.h>
#include <stdint.h>

struct lk {
    long value; // first: delegating on the struct's address would write into it
    pthread_mutex_t mutex;
};
extern struct lk L;
extern long q_released[2];

void lk_lock(struct lk *l);
void lk_unlock(struct lk *l);
void item_lock(uint32_t hv);
void item_unlock(uint32_t hv);
void STATS_LOCK(void);
void STATS_UNLOCK(void);
void q_lock(int q);
void q_unlock_counted(int q);
