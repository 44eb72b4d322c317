/* Its wrapper calls are spelled by a header's macros only: the object names the wrapper, the
   preprocessed text shows the call, and the rewriter runs. */
#include "wrap.h"
long w;
void touch(struct lk *l) { TAKE(l); w++; GIVE(l); }
