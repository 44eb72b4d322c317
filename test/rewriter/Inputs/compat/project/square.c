#include "counter.h"

long square(long x)
{
    return x * x;
}
