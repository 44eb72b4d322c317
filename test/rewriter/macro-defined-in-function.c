// A macro defined inside a function, before a critical section that uses it (unbound's
// daemon/worker.c: `#define TA_RESPONSE_MAX_TAGS 32` at the top of the function): the
// outlined function is written before the enclosing function, where the macro is not defined
// yet (or, redefined, means something else). Such a section was refused (before that, in the
// corpus, the rewritten file did not compile and rcl-cc fell back to the original). Now the
// outlined function is compiled with the function's last directive of each macro the section
// uses, directly or through another one's definition (`#pragma push_macro` / `pop_macro`
// around it), and converts; a redefined file-scope macro means there what it means in the
// section, and after it what it meant before. Only where a conditional in the function may
// have skipped a directive is the section still refused.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s < %t.c
// RUN: %cc -Wall -Wextra -Werror %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -Wall -Wextra -Werror %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

#define LIMIT 4
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int tags[64], used, calls, scaled, later;

// CHECK: #pragma push_macro("MAX_TAGS")
// CHECK-NEXT: #undef MAX_TAGS
// CHECK-NEXT: #define MAX_TAGS 32 /* max number of tags */
// CHECK: #pragma pop_macro("MAX_TAGS")
// CHECK: #pragma push_macro("LIMIT")
// CHECK-NEXT: #undef LIMIT
// CHECK-NEXT: #define LIMIT 8
// CHECK: #pragma pop_macro("LIMIT")
// Through another macro's definition: SCALED uses FACTOR, both the function's.
// CHECK: #pragma push_macro("FACTOR")
// CHECK-NEXT: #undef FACTOR
// CHECK-NEXT: #define FACTOR \
// CHECK-NEXT: 3
// CHECK-NEXT: #pragma push_macro("SCALED")
// CHECK-NEXT: #undef SCALED
// CHECK-NEXT: #define SCALED(x) ((x) * FACTOR)
int fill(void)
{
#define MAX_TAGS 32 /* max number of tags */
#undef LIMIT
#define LIMIT 8
#define FACTOR \
    3
#define SCALED(x) ((x) * FACTOR)
    int n = 0;
    pthread_mutex_lock(&m);
    for (n = 0; n < MAX_TAGS; n++) tags[n] = n;
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    used = LIMIT;
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    scaled = SCALED(used);
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    calls++; /* MAX_TAGS in a comment is no use */
    pthread_mutex_unlock(&m);
    return n;
}

int fill_later(void)
{
#ifdef NOT_DEFINED
#define STEP 5
#else
#define STEP 7
#endif
    // ERR: macro-defined-in-function.c:[[@LINE+1]]:5: rcl: cannot convert critical section: uses macro 'STEP', defined or undefined inside the function before the critical section (line [[@LINE-2]]) under a preprocessor conditional
    pthread_mutex_lock(&m);
    later += STEP;
    pthread_mutex_unlock(&m);
    return later;
}
// ERR: rcl: summary: 4 converted, 1 refused

int main(void)
{
    printf("%d %d %d %d %d %d %d\n", fill(), used, calls, tags[31], scaled, LIMIT, fill_later());
    return 0;
}
