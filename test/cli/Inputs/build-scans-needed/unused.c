/* No lock, and no section reaches it: rcl build never reads it. */
int unused_helper(int x)
{
    return x * 2;
}
