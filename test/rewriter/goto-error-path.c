// Case 2: the `goto out` error-path idiom. The unlock sits behind a label that gotos inside
// the section reach: the section ends at that unlock, the label (several nested labels too)
// stays at the end of the outlined body, so the gotos still compile, and the unlock becomes
// `return 0;`. A label followed by the unlock (`out: ;`, `out: n++;`) and a labelled exit
// unlock convert the same way.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static int table[16];
static int misses, deletes, busy;

// CHECK: struct rcl_cs_kv_delete_1_ctx {
// CHECK-NEXT:     int key;
// CHECK-NEXT:     int *rc;
// CHECK-NEXT: };
// CHECK: static RCL_SECTION_INLINE int rcl_cs_kv_delete_1(void *rcl_arg)
// CHECK-NEXT: {
// CHECK-NEXT:     struct rcl_cs_kv_delete_1_ctx *rcl_ctx = (struct rcl_cs_kv_delete_1_ctx *)rcl_arg;
// CHECK-NEXT:     int key = rcl_ctx->key;
// CHECK-NEXT:     if (key < 0 || key >= 16) {
// CHECK-NEXT:         (*rcl_ctx->rc) = -2;
// CHECK-NEXT:         goto out;
// CHECK-NEXT:     }
// CHECK-NEXT:     if (!table[key]) {
// CHECK-NEXT:         misses++;
// CHECK-NEXT:         (*rcl_ctx->rc) = -1;
// CHECK-NEXT:         goto out;
// CHECK-NEXT:     }
// CHECK-NEXT:     table[key] = 0;
// CHECK-NEXT:     deletes++;
// CHECK-NEXT: out:
// CHECK-NEXT:     return 0;
// CHECK-NEXT: }
// CHECK: static int kv_delete(int key)
// CHECK-NEXT: {
// CHECK-NEXT:     int rc = 0;
// CHECK-NEXT:     {
// CHECK-NEXT:         struct rcl_cs_kv_delete_1_ctx rcl_ctx = { .key = key, .rc = &rc };
// CHECK-NEXT:         rcl_delegate_ctx(&cache_lock, rcl_cs_kv_delete_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT:     }
// CHECK-NEXT:     return rc;
// CHECK-NEXT: }
static int kv_delete(int key)
{
    int rc = 0;
    pthread_mutex_lock(&cache_lock);
    if (key < 0 || key >= 16) {
        rc = -2;
        goto out;
    }
    if (!table[key]) {
        misses++;
        rc = -1;
        goto out;
    }
    table[key] = 0;
    deletes++;
out:
    pthread_mutex_unlock(&cache_lock);
    return rc;
}

// Two nested labels in front of the unlock, each reached by its own goto.
// CHECK: static RCL_SECTION_INLINE int rcl_cs_kv_take_1(void *rcl_arg)
// CHECK:         goto fail;
// CHECK:         goto done;
// CHECK:     (*rcl_ctx->v) = table[key];
// CHECK-NEXT: fail:
// CHECK-NEXT: done:
// CHECK-NEXT:     return 0;
// CHECK-NEXT: }
// CHECK: static int kv_take(int key)
// CHECK-NEXT: {
// CHECK-NEXT:     int v = -1;
// CHECK-NEXT:     {
// CHECK-NEXT:         struct rcl_cs_kv_take_1_ctx rcl_ctx = { .key = key, .v = &v };
// CHECK-NEXT:         rcl_delegate_ctx(&cache_lock, rcl_cs_kv_take_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT:     }
// CHECK-NEXT:     return v;
static int kv_take(int key)
{
    int v = -1;
    pthread_mutex_lock(&cache_lock);
    if (key < 0)
        goto fail;
    if (table[key] == 0)
        goto done;
    v = table[key];
fail:
done:
    pthread_mutex_unlock(&cache_lock);
    return v;
}

// The label on an empty statement, then the unlock.
// CHECK: static RCL_SECTION_INLINE int rcl_cs_kv_bump_1(void *rcl_arg)
// CHECK:         goto out;
// CHECK: out:;
// CHECK-NEXT:     return 0;
// CHECK-NEXT: }
static void kv_bump(int key)
{
    pthread_mutex_lock(&cache_lock);
    if (table[key] > 100)
        goto out;
    table[key]++;
out:;
    pthread_mutex_unlock(&cache_lock);
}

// The label on a statement that still needs the lock, then the unlock; a labelled exit
// unlock whose tail (the return) runs in the caller.
// CHECK: static RCL_SECTION_INLINE int rcl_cs_kv_add_1(void *rcl_arg)
// CHECK:     if (table[key] < 0)
// CHECK-NEXT:         goto out;
// CHECK-NEXT:     if (table[key] > 1000) {
// CHECK-NEXT: busy_exit:
// CHECK-NEXT:         return 1;
// CHECK-NEXT:     }
// CHECK-NEXT:     if (table[key] > 500)
// CHECK-NEXT:         goto busy_exit;
// CHECK-NEXT:     table[key] += n;
// CHECK-NEXT: out:
// CHECK-NEXT:     busy++;
// CHECK-NEXT:     return 0;
// CHECK-NEXT: }
// CHECK: static int kv_add(int key, int n)
// CHECK:         if (rcl_delegate_ctx(&cache_lock, rcl_cs_kv_add_1, &rcl_ctx, sizeof rcl_ctx) == 1) {
// CHECK-NEXT:             return -1;
// CHECK-NEXT:         }
static int kv_add(int key, int n)
{
    pthread_mutex_lock(&cache_lock);
    if (table[key] < 0)
        goto out;
    if (table[key] > 1000) {
busy_exit:
        pthread_mutex_unlock(&cache_lock);
        return -1;
    }
    if (table[key] > 500)
        goto busy_exit;
    table[key] += n;
out:
    busy++;
    pthread_mutex_unlock(&cache_lock);
    return table[key];
}

// SUMMARY: lock 'cache_lock': 4 converted, 0 refused
int main(void)
{
    for (int i = 0; i < 16; i++)
        table[i] = i % 3;
    for (int i = -1; i < 18; i++)
        printf("delete %d: %d\n", i, kv_delete(i));
    for (int i = 0; i < 16; i++)
        table[i] = i * 100;
    printf("take: %d %d %d\n", kv_take(-1), kv_take(0), kv_take(3));
    for (int i = 0; i < 16; i++)
        kv_bump(i);
    table[4] = -5;
    for (int i = 0; i < 16; i++)
        printf("add %d: %d\n", i, kv_add(i, 7));
    printf("misses %d deletes %d busy %d\n", misses, deletes, busy);
    return 0;
}
