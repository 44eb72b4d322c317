// Declared wrappers that reach the mutex through their first argument: `lk_lock(struct lk *l)`
// locking `&l->mutex` (/work/shared/cases/wrapper_not_a_mutex.c delegated on the struct's first
// bytes), and memcached's `item_lock(uint32_t hv)` locking `&item_locks[hv &
// hashmask(item_lock_hashpower)]` through a renaming macro. The mutex expression of the
// wrapper's body is evaluated at the call site with the argument in place of the parameter;
// the unlock must be the matching wrapper on the same argument. A section that writes what the
// expression reads (the table's hash power) is refused.
// Also a pair without arguments (memcached's STATS_LOCK()) and one whose mutex depends on two
// arguments (`tbl_lock(h, mask)`).
// RUN: %rcl-rewrite --all --lock-fn=lk_lock --unlock-fn=lk_unlock --lock-fn=item_lock --unlock-fn=item_unlock --lock-fn=STATS_LOCK --unlock-fn=STATS_UNLOCK --lock-fn=tbl_lock --unlock-fn=tbl_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define mutex_lock(x) pthread_mutex_lock(x)
#define hashmask(n) ((1u << (n)) - 1)

struct lk { long value; pthread_mutex_t mutex; };
static void lk_lock(struct lk *l) { pthread_mutex_lock(&l->mutex); }
static void lk_unlock(struct lk *l) { pthread_mutex_unlock(&l->mutex); }

static pthread_mutex_t item_locks[4];
static unsigned item_lock_hashpower = 2;
void item_lock(uint32_t hv) { mutex_lock(&item_locks[hv & hashmask(item_lock_hashpower)]); }
void item_unlock(uint32_t hv) { pthread_mutex_unlock(&item_locks[hv & hashmask(item_lock_hashpower)]); }

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
void STATS_LOCK(void) { pthread_mutex_lock(&stats_lock); }
void STATS_UNLOCK(void) { pthread_mutex_unlock(&stats_lock); }
static pthread_mutex_t table[4] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
void tbl_lock(unsigned h, unsigned mask) { pthread_mutex_lock(&table[h & mask]); }
void tbl_unlock(unsigned h, unsigned mask) { pthread_mutex_unlock(&table[h & mask]); }

static struct lk L = { 0, PTHREAD_MUTEX_INITIALIZER };
static long counter, seen, items[4], stats, slots[4];

// CHECK: __attribute__((unused)) static void lk_lock(struct lk *l)
// CHECK: __attribute__((unused)) static void lk_unlock(struct lk *l)
// CHECK: static void *worker(void *a)
// CHECK: rcl_delegate(&L.mutex, rcl_cs_worker_1, (void *)0);
// CHECK: rcl_delegate_ctx(&item_locks[(h) & ((1U << (item_lock_hashpower)) - 1)], rcl_cs_worker_2, &rcl_ctx, sizeof rcl_ctx);
// CHECK: rcl_delegate(&stats_lock, rcl_cs_worker_3, (void *)0);
// CHECK: rcl_delegate_ctx(&table[(h) & (3)], rcl_cs_worker_4, &rcl_ctx, sizeof rcl_ctx);
// ERR-DAG: rcl:   lock 'L.mutex': 1 converted, 0 refused
// ERR-DAG: rcl:   lock 'item_locks[(h) & ((1U << (item_lock_hashpower)) - 1)]': 1 converted, 0 refused
// ERR-DAG: rcl:   lock 'stats_lock': 1 converted, 0 refused
// ERR-DAG: rcl:   lock 'table[(h) & (3)]': 1 converted, 0 refused
static void *worker(void *a)
{
    (void)a;
    for (uint32_t i = 0; i < 200000; i++) {
        lk_lock(&L);
        seen |= L.value;
        counter++;
        lk_unlock(&L);
        uint32_t h = i * 2654435761u;
        item_lock(h);
        items[h & 3]++;
        item_unlock(h);
        STATS_LOCK();
        stats++;
        STATS_UNLOCK();
        tbl_lock(h, 3);
        slots[h & 3]++;
        tbl_unlock(h, 3);
    }
    return NULL;
}

// The section changes the table's hash power, which the lock expression reads: refused.
void grow(void)
{
    item_lock(0);
    // ERR-DAG: wrapper-mutex-through-body.c:[[@LINE-1]]:15: rcl: cannot convert critical section: the lock expression depends on 'item_lock_hashpower', which the critical section may modify
    item_lock_hashpower = 2;
    item_unlock(0);
}
// ERR-DAG: rcl: summary: 4 converted, 1 refused

int main(void)
{
    for (int i = 0; i < 4; i++) pthread_mutex_init(&item_locks[i], NULL);
    grow();
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("counter=%ld seen=%ld items=%ld %ld %ld %ld stats=%ld slots=%ld %ld %ld %ld\n", counter,
           seen, items[0], items[1], items[2], items[3], stats, slots[0], slots[1], slots[2],
           slots[3]);
    return 0;
}
