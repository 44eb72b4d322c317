// Case 5: macros that expand to the pthread calls are matched after expansion and edited at
// their spelling in the file; user wrappers are declared with --lock-fn/--unlock-fn.
// RUN: %rcl-rewrite --all --lock-fn=my_lock --unlock-fn=my_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
// Without the wrapper declaration, a wrapper defined in the file is found all the same (its
// definition reads as a lock and an unlock of one mutex: inferWrapperPairs).
// RUN: %rcl-rewrite --all %s -- %rcl_cflags 2>&1 >/dev/null | FileCheck %s --check-prefix=NOWRAP
#include <pthread.h>
#include <stdio.h>

#define LOCK(l) {pthread_mutex_lock(&(l));}
#define UNLOCK(l) {pthread_mutex_unlock(&(l));}
#define mutex_lock(x) pthread_mutex_lock(x)
#define mutex_unlock(x) pthread_mutex_unlock(x)
#define STAT_L(e) pthread_mutex_lock(&e->stats_mutex);
#define STAT_UL(e) pthread_mutex_unlock(&e->stats_mutex);

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void my_lock(pthread_mutex_t *l) { pthread_mutex_lock(l); }
static void my_unlock(pthread_mutex_t *l) { pthread_mutex_unlock(l); }

// CHECK: static RCL_SECTION_INLINE int rcl_cs_bump_1(void *rcl_arg)
// CHECK:     total++;
// CHECK: static RCL_SECTION_INLINE int rcl_cs_bump_2(void *rcl_arg)
// CHECK:     total += 2;
// CHECK: static RCL_SECTION_INLINE int rcl_cs_bump_3(void *rcl_arg)
// CHECK:     total += 3;
// CHECK: static void bump(void)
// CHECK: rcl_delegate(&(m), rcl_cs_bump_1, (void *)0);
// CHECK: rcl_delegate(&m, rcl_cs_bump_2, (void *)0);
// CHECK: rcl_delegate(&m, rcl_cs_bump_3, (void *)0);
// CHECK-NOT: LOCK(
// CHECK-NOT: mutex_lock(
static void bump(void)
{
    LOCK(m);
    total++;
    UNLOCK(m);
    mutex_lock(&m);
    total += 2;
    mutex_unlock(&m);
    my_lock(&m);
    total += 3;
    my_unlock(&m);
}

struct engine {
    pthread_mutex_t stats_mutex;
    long hits;
};

// A macro that carries its own `;` (memcached's STAT_L) is edited as a whole use.
// CHECK: static RCL_SECTION_INLINE int rcl_cs_engine_stat_1(void *rcl_arg)
// CHECK:     e->hits++;
// CHECK: static void engine_stat(struct engine *e)
// CHECK-NEXT: {
// CHECK-NEXT:     {
// CHECK-NEXT:         struct rcl_cs_engine_stat_1_ctx rcl_ctx = { .e = e };
// CHECK-NEXT:         rcl_delegate_ctx(&e->stats_mutex, rcl_cs_engine_stat_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT:     }
// CHECK-NEXT: }
static void engine_stat(struct engine *e)
{
    STAT_L(e);
    e->hits++;
    STAT_UL(e);
}

int main(void)
{
    struct engine e = {PTHREAD_MUTEX_INITIALIZER, 0};
    engine_stat(&e);
    printf("%ld\n", e.hits);
    bump();
    bump();
    printf("%d\n", total);
    return 0;
}
// SUMMARY: lock 'e->stats_mutex': 1 converted, 0 refused
// SUMMARY: lock 'm': 3 converted, 0 refused
// NOWRAP: lock 'm': 3 converted, 0 refused
