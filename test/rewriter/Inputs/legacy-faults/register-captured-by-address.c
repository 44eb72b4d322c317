/* legacy-gen fault: a `register` local of the enclosing function written in a section (the
   loop counter `i` of count) is captured by address (`.i = &i` in the context), which C
   forbids: "address of register variable requested", the output does not compile. A register
   only read in the section (`rq`: copied by value), one declared in a block nested in the
   section (`q`) and one declared at the section's top level and used after it (`v` of scaled:
   hoisted without the keyword) convert. Seen first in
   /work/shared/cases/register_variable_in_section.c. From the repository root:
     build/rewriter/rcl-rewrite --all test/rewriter/Inputs/legacy-faults/register-captured-by-address.c -- > /tmp/out.c
     clang-19 -fsyntax-only -Iruntime/include /tmp/out.c      # error: address of register variable requested
   Expected: converted and compiling (the keyword dropped in the rewritten file, or the value
   copied in and out), or refused with that reason; same output as the original ("67 22"). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static unsigned long g;

static void count(int k, long b)
{
    register int i;
    register long rq = b & 3;
    pthread_mutex_lock(&m);
    for (i = 0; i < k; i++)
        g += (unsigned long)i;
    {
        register int q = k & 5;
        g += (unsigned long)q + (unsigned long)rq;
    }
    pthread_mutex_unlock(&m);
}

static long scaled(int a)
{
    long r = 0;
    pthread_mutex_lock(&m);
    register long v = a * 3 + 1;
    g += (unsigned long)v;
    pthread_mutex_unlock(&m);
    r += v;
    return r;
}

int main(void)
{
    count(10, 0);
    long s = scaled(7);
    printf("%lu %ld\n", g, s);
    return 0;
}
