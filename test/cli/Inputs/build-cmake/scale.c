#include "counter.h"

long scale(long n)
{
    return 3 * n;
}
