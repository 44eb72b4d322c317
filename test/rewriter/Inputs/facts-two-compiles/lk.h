/* libxml2's elfgcchack.h in its PIC compiles: every wrapper renamed to an internal alias. */
#include <pthread.h>
#ifdef ALIAS
#define lk_lock lk_lock_alias
#define lk_unlock lk_unlock_alias
#endif
struct lk { pthread_mutex_t m; long n; };
void lk_lock(struct lk *l);
void lk_unlock(struct lk *l);
