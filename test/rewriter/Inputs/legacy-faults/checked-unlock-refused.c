/* legacy-gen fault (a refusal with a false reason, no mismatch): an unlock whose result is
   checked in the statement that releases the lock, `if (pthread_mutex_unlock(&m) != 0)
   abort();` or `if (pthread_mutex_unlock(&m)) abort();`, refuses the section with "the lock is
   still held at the end of its block (released in another block or function)", which is false:
   it is released in the same block. Whatever the lock is written as (plain, (void), checked,
   LOCK macro), in a loop or a statement expression too: every section of the campaign with a
   checked unlock was refused so. A checked lock alone converts (sub). Seen first in
   /work/shared/cases/unlock_checked_with_abort.c. From the repository root:
     build/rewriter/rcl-rewrite --all --dry-run test/rewriter/Inputs/legacy-faults/checked-unlock-refused.c --
   Expected: add's and twice's sections converted too (a delegated unlock cannot fail, so the
   failure branch never runs), or an accurate reason; same output in every RCL_MODE ("50 1225"). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LOCK(m) pthread_mutex_lock(m)

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total, calls;

static void add(int k)
{
    if (pthread_mutex_lock(&m) != 0)
        abort();
    total += k;
    if (pthread_mutex_unlock(&m) != 0)
        abort();
}

static void twice(int k)
{
    LOCK(&m);
    total += k;
    if (pthread_mutex_unlock(&m))
        abort();
}

static void sub(int k)
{
    if (pthread_mutex_lock(&m))
        abort();
    total -= k;
    calls++;
    pthread_mutex_unlock(&m);
}

int main(void)
{
    for (int k = 0; k < 50; k++) {
        add(k);
        twice(k);
        sub(k);
    }
    printf("%ld %ld\n", calls, total);
    return 0;
}
