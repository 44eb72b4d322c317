// Functions whose declaration begins with a macro (`#define local static`, visibility
// macros) are rewritten like the others (/work/shared/cases/macro_declared_functions.c: only
// plain_inc was seen, the other two were skipped without a word).
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#define local static
#define API __attribute__((visibility("default")))

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
long cnt;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_plain_inc_1(void *rcl_arg)
// CHECK: void plain_inc(void) {
// CHECK-NEXT: rcl_delegate(&m, rcl_cs_plain_inc_1, (void *)0);
void plain_inc(void) { pthread_mutex_lock(&m); cnt++; pthread_mutex_unlock(&m); }
// CHECK: static RCL_SECTION_INLINE int rcl_cs_local_inc_1(void *rcl_arg)
// CHECK: local void local_inc(void) {
// CHECK-NEXT: rcl_delegate(&m, rcl_cs_local_inc_1, (void *)0);
local void local_inc(void) { pthread_mutex_lock(&m); cnt++; pthread_mutex_unlock(&m); }
// CHECK: static RCL_SECTION_INLINE int rcl_cs_api_inc_1(void *rcl_arg)
// CHECK: API void api_inc(void) {
// CHECK-NEXT: rcl_delegate(&m, rcl_cs_api_inc_1, (void *)0);
API void api_inc(void) { pthread_mutex_lock(&m); cnt++; pthread_mutex_unlock(&m); }


// `bool` is a macro of <stdbool.h>: memcached's item_stats_sizes_status, resp_start,
// slabs_adjust_mem_limit were skipped for that.
// CHECK: static RCL_SECTION_INLINE int rcl_cs_positive_1(void *rcl_arg)
// CHECK: bool positive(void)
// CHECK: rcl_delegate_ctx(&m, rcl_cs_positive_1, &rcl_ctx, sizeof rcl_ctx);
bool positive(void)
{
    bool ret = false;
    pthread_mutex_lock(&m);
    if (cnt > 0)
        ret = true;
    pthread_mutex_unlock(&m);
    return ret;
}

int main(void)
{
    plain_inc();
    local_inc();
    api_inc();
    printf("positive=%d\n", positive());
    printf("cnt=%ld\n", cnt);
    return 0;
}

// A whole function produced by a macro stays as it is, refused with the macro's name: its
// statements are macro arguments, where the call site's initializer commas would change the
// macro's arguments.
#define DEFINE_BUMP(name, body) void name(void) { body }
// CHECK: DEFINE_BUMP(macro_bump, pthread_mutex_lock(&m); cnt += 10; pthread_mutex_unlock(&m);)
DEFINE_BUMP(macro_bump, pthread_mutex_lock(&m); cnt += 10; pthread_mutex_unlock(&m);)
// SUMMARY: macro-declared-functions.c:[[@LINE-1]]:1: rcl: cannot convert critical section: the function's body is written by macro 'DEFINE_BUMP', whose text the tool does not edit
// SUMMARY: rcl: summary: 4 converted, 1 refused
