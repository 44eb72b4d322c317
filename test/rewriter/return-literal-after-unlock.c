// Case 18: `unlock; return "literal";` and `unlock; return 'c';` (shared/cases/
// return_literal_after_unlock.c). The tail's `;` was found by relexing from the literal's
// closing quote, which starts another literal: the call site lost its `;` and the outlined
// body got `return 1;;`, and the file did not compile. Same output in every RCL_MODE.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int n;
struct pair { int a, b; };

// CHECK: static RCL_SECTION_INLINE int rcl_cs_name_1(void *rcl_arg)
// CHECK: if (v == 2) {
// CHECK-NEXT: return 1;
// CHECK-NEXT: }
// CHECK: static const char *name(int v)
// CHECK: == 1) {
// CHECK-NEXT: return "two";
// CHECK-NEXT: }
static const char *name(int v)
{
    const char *s;
    pthread_mutex_lock(&m);
    if (v == 2) {
        pthread_mutex_unlock(&m);
        return "two";
    }
    s = "other";
    n++;
    pthread_mutex_unlock(&m);
    return s;
}

// CHECK: static char grade(int v)
// CHECK: == 1) {
// CHECK-NEXT: return 'x';
static char grade(int v)
{
    char c;
    pthread_mutex_lock(&m);
    switch (v) {
    case 2:
        pthread_mutex_unlock(&m);
        return 'x';
    default:
        c = 'y';
        break;
    }
    pthread_mutex_unlock(&m);
    return c;
}

// A compound literal ends in `}` but its return still owns the `;`.
// CHECK: static struct pair both(int v)
// CHECK: == 1) {
// CHECK-NEXT: return (struct pair){v, n};
static struct pair both(int v)
{
    pthread_mutex_lock(&m);
    if (v > 0) {
        pthread_mutex_unlock(&m);
        return (struct pair){v, n};
    }
    n--;
    pthread_mutex_unlock(&m);
    return (struct pair){0, 0};
}

int main(void)
{
    struct pair p = both(3), q = both(-1);
    printf("%s %s %c %c %d %d %d %d\n", name(1), name(2), grade(1), grade(2), p.a, p.b, q.a, n);
    return 0;
}
