// rcl-cc's copy expands a macro that defines a whole function with its section (jemalloc's
// ctl.c `CTL_RO_CGEN`), its definition continued over lines with backslashes. The tokens that
// start a continued line were copied from the backslash before them, so each use added lines to
// the copy: every later diagnostic and report line moved down (by 3 a use here; jemalloc's
// ctl.c reported its sections one line off in one pass and not in the other, and the corpus
// counted them twice).
// RUN: %rcl-rewrite --all --resolve-copy --line-directives %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// The report names each section where it is written: a section of a macro use at the use (the
// copy writes the expansion on the use's line, its tokens joined: a column of the copy would
// differ from one compile to the next with other macro definitions, and the corpus counted
// jemalloc's ctl.c sections twice).
// RUN: %rcl-rewrite --all --resolve-copy --report-json %t.json %s -- %rcl_cflags > /dev/null 2>&1
// RUN: %python -c "import json; [print('SECTION', s['line'], s['column'], s['function'], s['status']) for l in json.load(open('%t.json'))['locks'] for s in l['sections']]" | FileCheck %s --check-prefix=JSON
// JSON-DAG: SECTION 35 1 a converted
// JSON-DAG: SECTION 36 1 b converted
// JSON-DAG: SECTION 42 5 c refused
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

static int t = 2;
static int c(void)
{
    int r;
    pthread_mutex_lock(&m);
    r = v + t * sched_getscheduler(0);
    pthread_mutex_unlock(&m);
    return r;
}
// ERR: resolve-copy-continued-macro.c:[[# @LINE-4]]:17: rcl: cannot convert critical section: acts on the calling thread (sched_getscheduler), which would be the server
// ERR: rcl: summary: 2 converted, 1 refused

int main(void)
{
    printf("%d\n", a() + b() + c());
    return 0;
}
