/* The hook's name has the library's prefix, except in the compiles that list symbols. */
#ifndef NO_PREFIX
#define add_two p_add_two
#endif
void add_two(long *total);
