/* Its mutex calls are spelled by a header's macros only: the check sees them after
   preprocessing, so the rewriter runs (and converts the GRAB/DROP section). */
#include "locks.h"
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
long n;
void bump(void) { GRAB(m); n++; DROP(m); }
