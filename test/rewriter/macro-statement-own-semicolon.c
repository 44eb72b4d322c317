// A statement of the section spelled by a macro that carries its own `;` (memcached's
// `#define APPEND_STAT(name, fmt, val) append_stat(name, add_stats, c, fmt, val);`, used as
// `APPEND_STAT(...);`) counts as that macro use and moves into the outlined body whole; it
// was refused ("the critical section is written inside a macro expansion",
// item_stats_sizes_disable in items.c). The section calls through the pointer add_stats: the
// file is the whole program (--facts-complete), whose one function of that type, print_stat,
// is harmless.
// RUN: %rcl-rewrite --all --facts-complete %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define mutex_lock(x) pthread_mutex_lock(x)
#define mutex_unlock(x) pthread_mutex_unlock(x)
typedef void (*ADD_STAT)(const char *key, const char *val, void *c);
static void append_stat(const char *name, ADD_STAT add_stats, void *c, const char *val)
{
    add_stats(name, val, c);
}
#define APPEND_STAT(name, val) \
    append_stat(name, add_stats, c, val);

static pthread_mutex_t stats_sizes_lock = PTHREAD_MUTEX_INITIALIZER;
static int *stats_sizes_hist;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_sizes_disable_1(void *rcl_arg)
// CHECK:     APPEND_STAT("sizes_status", "disabled");
// CHECK-NEXT: return 0;
// CHECK: rcl_delegate_ctx(&stats_sizes_lock, rcl_cs_sizes_disable_1, &rcl_ctx, sizeof rcl_ctx);
static void sizes_disable(ADD_STAT add_stats, void *c)
{
    mutex_lock(&stats_sizes_lock);
    if (stats_sizes_hist != NULL) {
        free(stats_sizes_hist);
        stats_sizes_hist = NULL;
    }
    APPEND_STAT("sizes_status", "disabled");
    mutex_unlock(&stats_sizes_lock);
}
// ERR: rcl: summary: 1 converted, 0 refused

static void print_stat(const char *key, const char *val, void *c)
{
    printf("%s %s=%s\n", (const char *)c, key, val);
}

int main(void)
{
    stats_sizes_hist = calloc(4, sizeof *stats_sizes_hist);
    sizes_disable(print_stat, "STAT");
    printf("hist=%p\n", (void *)stats_sizes_hist);
    return 0;
}
