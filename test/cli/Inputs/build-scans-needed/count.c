/* Defined in another file than its caller's critical section, and harmless on a server. */
long count_up(long n)
{
    return n + 1;
}
