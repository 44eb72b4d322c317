/* Lock macros over declared wrappers (RCL_CC_LOCK_FN=lk_take, RCL_CC_UNLOCK_FN=lk_give). */
struct lk;
void lk_take(struct lk *l);
void lk_give(struct lk *l);
#define TAKE(l) lk_take(l)
#define GIVE(l) lk_give(l)
