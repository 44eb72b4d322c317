// Case 6/19: lock and unlock results checked inside the program's own lock macros, in
// expression form, `#define xlock(m) ((void)(pthread_mutex_lock(m) && (abort(), 0)))` (a
// message broker's, 0 of 8 sections before), and statement form, `#define LOCK(l) do { int err;
// if ((err = pthread_mutex_lock(l)) != 0) log_err(...); } while (0)` (a monitoring daemon's, 0
// of 131). A delegated lock or unlock does not fail, so each such statement is the operation
// alone: the section converts and the failure branch goes, with a note. Same output in every
// RCL_MODE, two threads.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define xlock(m) ((void)(pthread_mutex_lock(m) && (abort(), 0)))
#define xunlock(m) ((void)(pthread_mutex_unlock(m) && (abort(), 0)))
#define LOCK(l) do { int err; if ((err = pthread_mutex_lock(l)) != 0) log_err("lock", err); } while (0)
#define UNLOCK(l) do { int err_; if ((err_ = pthread_mutex_unlock(l))) log_err("unlock", err_); } while (0)

static void log_err(const char *what, int err) { fprintf(stderr, "%s: %d\n", what, err); }
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long count, misses;

// CHECK: static void hit(void)
// CHECK-NEXT: {
// CHECK-NEXT: {
// CHECK-NEXT: rcl_delegate(&m, rcl_cs_hit_1, (void *)0);
// CHECK-NEXT: }
static void hit(void)
{
    xlock(&m);
    count++;
    xunlock(&m);
}

// CHECK: static RCL_SECTION_INLINE int rcl_cs_miss_1(void *rcl_arg)
// CHECK: if (k % 5 == 0) {
// CHECK-NEXT: return 1;
// CHECK-NEXT: }
// CHECK: static int miss(int k)
// CHECK: == 1) {
// CHECK-NEXT: return -1;
static int miss(int k)
{
    LOCK(&m);
    if (k % 5 == 0) {
        UNLOCK(&m);
        return -1;
    }
    misses++;
    UNLOCK(&m);
    return 0;
}

static void *work(void *arg)
{
    (void)arg;
    for (int k = 0; k < 20000; k++) {
        hit();
        miss(k);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("count=%ld misses=%ld\n", count, misses);
    return 0;
}
// ERR-DAG: rcl: note: converted critical section drops the check of pthread_mutex_lock's result
// ERR-DAG: rcl: note: converted critical section drops the check of pthread_mutex_unlock's result
// ERR: rcl: summary: 2 converted, 0 refused
