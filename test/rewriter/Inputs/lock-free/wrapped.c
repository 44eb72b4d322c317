/* Only a declared wrapper's name: the rewriter runs. */
struct lk;
void lk_take(struct lk *l);
void lk_give(struct lk *l);
long v;
void touch(struct lk *l) { lk_take(l); v++; lk_give(l); }
