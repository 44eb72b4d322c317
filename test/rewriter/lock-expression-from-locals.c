// Case 14: a lock expression built from locals is evaluated once, at the call site. The
// section is refused when it may change something the expression reads.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

struct table {
    pthread_mutex_t locks[4];
    int counts[4];
    unsigned mask;
};

// CHECK: struct rcl_cs_add_1_ctx {
// CHECK-NEXT:     struct table *tbl;
// CHECK-NEXT:     unsigned int h;
// CHECK-NEXT: };
// CHECK: rcl_delegate_ctx(&tbl->locks[h & tbl->mask], rcl_cs_add_1, &rcl_ctx, sizeof rcl_ctx);
static void add(struct table *tbl, unsigned h)
{
    pthread_mutex_lock(&tbl->locks[h & tbl->mask]);
    tbl->counts[h & tbl->mask]++;
    pthread_mutex_unlock(&tbl->locks[h & tbl->mask]);
}

static void moving(struct table *tbl, unsigned h)
{
    pthread_mutex_lock(&tbl->locks[h & 3]);
    // DIAG: lock-expression-from-locals.c:[[@LINE-1]]:24: rcl: cannot convert critical section: the lock expression depends on 'h', which the critical section may modify
    tbl->counts[h & 3]++;
    h = h + 0;
    pthread_mutex_unlock(&tbl->locks[h & 3]);
}

struct holder {
    struct table *tbl;
};

static void reset_all(struct table *tbl);

// Only the values the lock expression loads count: `&t.locks[0]` is the same mutex whatever
// the section does with `t` (here, passes its address on), but `h.tbl` is a value read from `h`.
// CHECK: struct rcl_cs_passes_address_1_ctx {
// CHECK-NEXT:     struct table *t;
// CHECK-NEXT: };
// CHECK: reset_all(&(*rcl_ctx->t));
// CHECK: rcl_delegate_ctx(&t.locks[0], rcl_cs_passes_address_1, &rcl_ctx, sizeof rcl_ctx);
static int passes_address(void)
{
    struct table t = {{PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                       PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER},
                      {1, 2, 3, 4},
                      3};
    pthread_mutex_lock(&t.locks[0]);
    reset_all(&t);
    pthread_mutex_unlock(&t.locks[0]);
    return t.counts[0] + t.counts[1];
}

static void through_member(struct table *tbl, struct table *other)
{
    struct holder h = {tbl};
    pthread_mutex_lock(&h.tbl->locks[0]);
    // DIAG: lock-expression-from-locals.c:[[@LINE-1]]:24: rcl: cannot convert critical section: the lock expression depends on 'h', which the critical section may modify
    h.tbl->counts[0]++;
    h.tbl = other;
    pthread_mutex_unlock(&h.tbl->locks[0]);
}

static void reset_all(struct table *tbl)
{
    for (int i = 1; i < 4; i++)
        tbl->counts[i] = 0;
}

int main(void)
{
    struct table t = {{PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                       PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER},
                      {0, 0, 0, 0},
                      3};
    for (unsigned i = 0; i < 10; i++)
        add(&t, i);
    moving(&t, 1);
    through_member(&t, &t);
    printf("%d\n", passes_address());
    printf("%d %d %d %d\n", t.counts[0], t.counts[1], t.counts[2], t.counts[3]);
    return 0;
}
// DIAG: lock 'h.tbl->locks[0]': 0 converted, 1 refused
// DIAG: lock 't.locks[0]': 1 converted, 0 refused
// DIAG: lock 'tbl->locks[h & 3]': 0 converted, 1 refused
// DIAG: lock 'tbl->locks[h & tbl->mask]': 1 converted, 0 refused
