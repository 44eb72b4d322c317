// A macro whose expansion holds a whole section (lock, copy a field, unlock), expanded inside
// other code: a logging macro (756 of a library's 954 sections), a statement macro. The tool
// does not edit macro definitions, so each is refused, now naming the macro and what to do
// (it said only "written inside a macro expansion"). The file is left byte for byte.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t name_lock = PTHREAD_MUTEX_INITIALIZER;
static char name[16] = "worker";
static long hits;

#define LOG_NAME(buf) do { pthread_mutex_lock(&name_lock); strcpy(buf, name); pthread_mutex_unlock(&name_lock); } while (0)
#define COUNT_HIT() { pthread_mutex_lock(&name_lock); hits++; pthread_mutex_unlock(&name_lock); }

void report(int code)
{
    char buf[16];
    LOG_NAME(buf);
    printf("%s: %d\n", buf, code);
}
// CHECK: section-in-macro-refused.c:[[@LINE-3]]:5: rcl: cannot convert critical section: the critical section is written inside a macro expansion (in macro 'LOG_NAME'), whose definition the tool does not edit (write the section out where the macro is used, or make the macro call a function that holds it)

void hit(void)
{
    COUNT_HIT();
}
// CHECK: section-in-macro-refused.c:[[@LINE-2]]:5: rcl: cannot convert critical section: the critical section is written inside a macro expansion (in macro 'COUNT_HIT')
// CHECK: rcl: summary: 0 converted, 2 refused
