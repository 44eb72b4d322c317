/* The tasks (no lock call here: rcl-cc does not parse this file in the first pass). */
#include "pool.h"

static volatile long sink;

/* A monitor's task: it releases the pool's lock while it computes, then takes it again. */
static void compress_task(struct pool *p, long n)
{
    pool_unlock(p);
    for (long i = 0; i < n; i++)
        sink += i;
    pool_lock(p);
    p->done++;
}

static void count_task(struct pool *p, long n)
{
    p->sum += n;
    p->done++;
}

struct task tasks[2] = {{compress_task, 1000}, {count_task, 5}};
