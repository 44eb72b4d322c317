// Sections that use the enclosing function's variable arguments (libmicrohttpd's
// MHD_set_connection_option: `va_start(ap, option); ui_val = va_arg(ap, unsigned int);
// va_end(ap);` with its daemon's lock held). The call site starts a list of its own before it
// delegates and ends it after; the section's va_start copies it (__builtin_va_copy), and va_arg
// and va_end work on the list's memory (the register save area and the stacked arguments live
// in the caller's frame, which stays while the section runs). A list started before the
// section and read inside it (vsnprintf) needs nothing: the section reads it through its
// capture. Integers, doubles (the floating-point save area) and an exit inside the section.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags -Wdeclaration-after-statement > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -Wdeclaration-after-statement %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
// RUN: %rcl-rewrite --all --line-directives %s -- %rcl_cflags > %t.lines.c 2>/dev/null
// RUN: %cc %t.lines.c -o %t.lines %rcl_libs && env RCL_MODE=delegate %t.lines > %t.lines.out
// RUN: diff %t.orig.out %t.lines.out
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;
static double dtotal;
static char last[64];

// CHECK-LABEL: static int add_all(
// CHECK: .rcl_va = &rcl_va
// CHECK-NEXT: __builtin_va_start(rcl_va, n);
// CHECK-NEXT: (void)(rcl_va_result = rcl_delegate_ctx(&m, rcl_cs_add_all_1, &rcl_ctx, sizeof rcl_ctx), __builtin_va_end(rcl_va), rcl_va_result);
static int add_all(int n, ...)
{
    va_list ap;
    int i;
    pthread_mutex_lock(&m);
    va_start(ap, n);
    for (i = 0; i < n; i++)
        total += va_arg(ap, int);
    va_end(ap);
    pthread_mutex_unlock(&m);
    return 0;
}

static double sum_doubles(int n, ...)
{
    va_list ap;
    double s = 0;
    pthread_mutex_lock(&m);
    va_start(ap, n);
    if (n > 8) {
        va_end(ap);
        pthread_mutex_unlock(&m);
        return -1;
    }
    while (n-- > 0)
        s += va_arg(ap, double);
    va_end(ap);
    dtotal += s;
    pthread_mutex_unlock(&m);
    return s;
}

static void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&m);
    vsnprintf(last, sizeof last, fmt, ap);
    total += (long)strlen(last);
    pthread_mutex_unlock(&m);
    va_end(ap);
}

static void *worker(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < 2000; i++) {
        add_all(3, 1, 2, (int)id);
        sum_doubles(2, 0.5, 0.25);
        sum_doubles(9, 1.0);
        note("%d:%s:%f", i, "x", 0.5);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("%ld %.2f %d\n", total, dtotal, (int)strlen(last) > 0);
    return 0;
}
// ERR: rcl: summary: 3 converted, 0 refused
// STATS: rcl: server 0 ({{.*}}): 24000 sections served
