// A section that uses its function's va_list parameter, through a hook taking a va_list (MIT
// Kerberos's com_err_va: `p = com_err_hook ? com_err_hook : default_com_err_proc; (*p)(whoami,
// code, fmt, ap);`). The parameter's type is the pointer a va_list decays to, which Clang prints
// as `struct __va_list_tag *`: written so in the context structure, it named a new structure
// and the rewritten file did not compile (krb5's com_err.c was compiled unchanged). It is
// written through __builtin_va_list; the section converts and prints what the original does.
// RUN: %rcl-rewrite --all --facts-complete %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
typedef void (*hook_fn)(const char *, const char *, va_list);
static hook_fn hook;

static void default_proc(const char *who, const char *fmt, va_list ap)
{
    printf("%s: ", who);
    vprintf(fmt, ap);
}

void report_va(const char *who, const char *fmt, va_list ap)
{
    void (*p)(const char *, const char *, va_list);
    pthread_mutex_lock(&hook_lock);
    p = hook ? hook : default_proc;
    (*p)(who, fmt, ap);
    pthread_mutex_unlock(&hook_lock);
}
// CHECK: __typeof__((*(__builtin_va_list *)0)[0]) *ap;
// CHECK: void report_va(const char *who, const char *fmt, va_list ap)
// CHECK: rcl_delegate

void report(const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_va(who, fmt, ap);
    va_end(ap);
}

int main(void)
{
    report("main", "%d %s\n", 42, "answers");
    report("main", "%s\n", "done");
    return 0;
}
// ERR: rcl: summary: 1 converted, 0 refused
