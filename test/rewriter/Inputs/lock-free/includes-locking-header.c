/* Calls a header's locking function, takes no lock itself: nothing of its own to convert. */
#include "locking-header.h"
long twice_bumped(void)
{
    header_bump();
    header_bump();
    return header_count;
}
