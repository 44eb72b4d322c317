#include "locks.h"
#include <stdio.h>

static long counter, seen, items[4], stats, skipped[4], qcount[2]; /* each under its lock */

static void *worker(void *a)
{
    (void)a;
    for (uint32_t i = 0; i < 1000; i++) {
        lk_lock(&L);
        seen |= L.value;
        counter++;
        lk_unlock(&L);
        uint32_t h = i * 2654435761u;
        item_lock(h);
        if (h % 5 == 0) {
            skipped[h & 3]++;
            item_unlock(h);
            continue;
        }
        items[h & 3]++;
        item_unlock(h);
        STATS_LOCK();
        stats++;
        STATS_UNLOCK();
        q_lock(i & 1);
        qcount[i & 1]++;
        q_unlock_counted(i & 1);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("counter=%ld seen=%ld items=%ld %ld %ld %ld skipped=%ld stats=%ld q=%ld %ld "
           "released=%ld %ld\n",
           counter, seen, items[0], items[1], items[2], items[3],
           skipped[0] + skipped[1] + skipped[2] + skipped[3], stats, qcount[0], qcount[1],
           q_released[0], q_released[1]);
    return 0;
}
