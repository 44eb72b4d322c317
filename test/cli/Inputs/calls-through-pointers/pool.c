#include <stdio.h>
#include <stdlib.h>
#include "pool.h"

static struct pool pool = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
static int numbers[6] = {5, 3, 4, 0, 2, 1};

void pool_lock(struct pool *p) { pthread_mutex_lock(&p->lock); }
void pool_unlock(struct pool *p) { pthread_mutex_unlock(&p->lock); }

/* A worker's round: one section around the tasks it runs through a pointer. */
static void run_tasks(struct pool *p)
{
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < 2; i++)
        tasks[i].run(p, tasks[i].arg);
    pthread_mutex_unlock(&p->lock);
}

static long apply_ops(int x)
{
    long r;
    pthread_mutex_lock(&pool.lock);
    r = ops[0](x) + ops[1](x);
    pool.sum += r;
    pthread_mutex_unlock(&pool.lock);
    return r;
}

static int by_value(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static void sort_numbers(void)
{
    pthread_mutex_lock(&pool.lock);
    qsort(numbers, 6, sizeof numbers[0], by_value);
    pthread_mutex_unlock(&pool.lock);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int r = 0; r < 100; r++) {
        run_tasks(&pool);
        apply_ops(r);
    }
    sort_numbers();
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("done %ld, sum %ld, sorted %d%d%d%d%d%d\n", pool.done, pool.sum, numbers[0],
           numbers[1], numbers[2], numbers[3], numbers[4], numbers[5]);
    return 0;
}
