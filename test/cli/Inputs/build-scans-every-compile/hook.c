#include "hook.h"

/* No mutex call: rcl-cc does not parse this file, rcl build reads its facts between passes. */
void add_two(long *total)
{
    *total += 2;
}
