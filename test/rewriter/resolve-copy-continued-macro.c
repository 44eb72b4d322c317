// rcl-cc's copy expands a macro that defines a whole function with its section (jemalloc's
// ctl.c `CTL_RO_CGEN`), its definition continued over lines with backslashes. The tokens that
// start a continued line were copied from the backslash before them, so each use added lines to
// the copy: every later diagnostic and report line moved down (by 3 a use here; jemalloc's
// ctl.c reported its sections one line off in one pass and not in the other, and the corpus
// counted them twice).
// RUN: %rcl-rewrite --all --resolve-copy --line-directives %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v = 20;
#define GEN(name) \
static int name(void) \
{ \
    int r; \
    pthread_mutex_lock(&m); \
    r = v; \
    pthread_mutex_unlock(&m); \
    return r; \
}
GEN(a)
GEN(b)

static __thread int t = 2;
static int c(void)
{
    int r;
    pthread_mutex_lock(&m);
    r = v + t;
    pthread_mutex_unlock(&m);
    return r;
}
// ERR: resolve-copy-continued-macro.c:[[# @LINE-4]]:13: rcl: cannot convert critical section: uses thread-local variable 't'
// ERR: rcl: summary: 2 converted, 1 refused

int main(void)
{
    printf("%d\n", a() + b() + c());
    return 0;
}
