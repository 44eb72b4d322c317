/* The portable layer the program calls: each wrapper calls the platform's. */
#include "lk.h"
void my_lock(struct lk *l) { plat_lock(l); }
void my_unlock(struct lk *l) { plat_unlock(l); }
void my_lock2(struct lk *l) { plat_lock(l); }
void my_unlock2(struct lk *l) { plat_unlock_counted(l); }
