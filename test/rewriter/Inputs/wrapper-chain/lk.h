#include <pthread.h>
struct lk { pthread_mutex_t m; long released; };
void plat_lock(struct lk *l);
void plat_unlock(struct lk *l);
void plat_unlock_counted(struct lk *l);
void my_lock(struct lk *l);
void my_unlock(struct lk *l);
void my_lock2(struct lk *l);
void my_unlock2(struct lk *l);
