/* No lock at all: nothing is said of it. */
int twice(int x)
{
    return 2 * x;
}
