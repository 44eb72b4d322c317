/* One take wrapper, two release wrappers (shared/cases/wrapper_pairs_share_a_lock): a section
   ended by each, and one whose paths release through different ones. */
#include <stdio.h>
#include "lk.h"
static lock counter = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
static long other;

static void plain(void)
{
    possess(&counter);
    other++;
    release(&counter); /* must not touch counter.value */
}

static void bumped(void)
{
    possess(&counter);
    other += 2;
    bump(&counter); /* counter.value + 1 */
}

static int mixed(int i)
{
    possess(&counter);
    if (i % 3 == 0) {
        bump(&counter);
        return 1;
    }
    other += 3;
    release(&counter);
    return 0;
}

int main(void)
{
    int bumps = 0;
    for (int i = 0; i < 1000; i++) {
        plain();
        if (i % 10 == 0) bumped();
        bumps += mixed(i);
    }
    printf("other=%ld value=%ld bumps=%d\n", other, counter.value, bumps);
    return 0;
}
