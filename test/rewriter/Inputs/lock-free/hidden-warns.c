/* Locks through a header's macros only, and has a warning: compiled as it is first, then again
   rewritten; the build log shows the warning once. */
#include "locks.h"
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
long n;
void bump(void) { int unused_here; GRAB(m); n++; DROP(m); }
