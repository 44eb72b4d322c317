// A declared unlock wrapper that does more than unlock: `twist(l, by)` adds to a value and
// broadcasts, then unlocks (/work/shared/cases/unlock_wrapper_with_effects.c: the whole call
// became the end of the section and its effects vanished, "value=0, expected 1000"). Its
// statements before the unlock are copied once into `rcl_twist_before_unlock` (same
// parameters), and each unlock through it, final or an exit, calls that copy inside the
// section, just before the section ends.
// RUN: %rcl-rewrite --all --lock-fn=possess --unlock-fn=twist %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
// Under --line-directives (rcl-cc) the output compiles too.
// RUN: %rcl-rewrite --all --line-directives --lock-fn=possess --unlock-fn=twist %s -- %rcl_cflags > %t.lines.c 2>/dev/null
// RUN: %cc %t.lines.c -o %t.lines %rcl_libs && %t.lines > %t.lines.out
// RUN: diff %t.orig.out %t.lines.out
#include <pthread.h>
#include <stdio.h>

struct lk { pthread_mutex_t m; pthread_cond_t c; long value; };
void possess(struct lk *l) { pthread_mutex_lock(&l->m); }
void twist(struct lk *l, long by) { l->value += by; pthread_cond_broadcast(&l->c); pthread_mutex_unlock(&l->m); }
static struct lk L = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
static long work;

// CHECK: static void rcl_twist_before_unlock(struct lk *l, long by)
// CHECK-NEXT: {
// CHECK-NEXT: (void)l;
// CHECK-NEXT: (void)by;
// CHECK-NEXT: l->value += by;
// CHECK-NEXT: pthread_cond_broadcast(&l->c);
// CHECK-NEXT: }
// CHECK: static RCL_SECTION_INLINE int rcl_cs_worker_1(void *rcl_arg)
// CHECK: work++;
// CHECK-NEXT: if (work % 7 == 0) {
// CHECK-NEXT: rcl_twist_before_unlock(&L, bonus); return 1;
// CHECK-NEXT: }
// CHECK-NEXT: rcl_twist_before_unlock(&L, +1); return 0;
// CHECK: if (rcl_delegate_ctx(&L.m, rcl_cs_worker_1, &rcl_ctx, sizeof rcl_ctx) == 1) {
// CHECK-NEXT: continue;
// CHECK-NOT: rcl_twist_before_unlock(struct
// ERR: rcl: summary: 1 converted, 0 refused
static void *worker(void *a)
{
    long bonus = 1;
    (void)a;
    for (int i = 0; i < 1000; i++) {
        possess(&L);
        work++;
        if (work % 7 == 0) {
            twist(&L, bonus);
            continue;
        }
        twist(&L, +1);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("work=%ld value=%ld\n", work, L.value);
    return 0;
}
