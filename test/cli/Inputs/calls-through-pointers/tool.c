/* Another program of the same build (no lock call): its operation reads the calling thread's
   identity, but it is never linked into prog, so prog's calls through ops[] cannot reach it. */
#include <pthread.h>
#include <stdio.h>

static int thread_tagged(int x) { return x + 0 * (int)(pthread_self() & 1); }

int (*tool_ops[1])(int) = {thread_tagged};

int main(void)
{
    printf("%d\n", tool_ops[0](41));
    return 0;
}
