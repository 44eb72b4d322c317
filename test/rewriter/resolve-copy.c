// rcl-cc's copy (--resolve-copy): sections written inside a macro (a stats macro `do { lock;
// ...; unlock; } while (0)`, a logging macro that takes its lock around its body,
// `WITH_LOCK(m, stmt)`) and sections whose lock and unlock sit in their own `#if HAS_THREADS`
// blocks convert on the text the preprocessor made of them: each macro use is replaced by its
// expansion (each use is its own section), the conditionals of the function are resolved, and
// every line keeps its number (`#line`). Without --resolve-copy (rcl convert, whose output a
// person keeps) they stay refused, with the reason.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags -DHAS_THREADS=1 2>&1 >/dev/null | FileCheck %s --check-prefix=KEPT
// RUN: %rcl-rewrite --all --resolve-copy --line-directives %s -- %rcl_cflags -DHAS_THREADS=1 > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s < %t.c
// RUN: %cc -DHAS_THREADS=1 %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -DHAS_THREADS=1 %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
// RUN: not %rcl-rewrite --all --resolve-copy --in-place %s -- %rcl_cflags 2>&1 | FileCheck %s --check-prefix=USAGE
// USAGE: rcl-rewrite: --resolve-copy writes a copy for the compiler only: not with --in-place or --export-fixes
#include <pthread.h>
#include <stdio.h>

struct stats { pthread_mutex_t m; long v; };
#define STATS_ADD(s, n)                                                                     \
    do {                                                                                    \
        pthread_mutex_lock(&(s)->m);                                                        \
        (s)->v += (n);                                                                      \
        pthread_mutex_unlock(&(s)->m);                                                      \
    } while (0)

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static long log_count, log_bytes;
#define LOG_LINE(len)                                                                       \
    do {                                                                                    \
        pthread_mutex_lock(&log_lock);                                                      \
        log_count++;                                                                        \
        log_bytes += (len);                                                                 \
        pthread_mutex_unlock(&log_lock);                                                    \
    } while (0)

#define WITH_LOCK(m, stmt)                                                                  \
    do {                                                                                    \
        pthread_mutex_lock(m);                                                              \
        stmt;                                                                               \
        pthread_mutex_unlock(m);                                                            \
    } while (0)

static struct stats hits = { PTHREAD_MUTEX_INITIALIZER, 0 }, misses = { PTHREAD_MUTEX_INITIALIZER, 0 };
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static long table_size;
static long lines_seen;

// CHECK-LABEL: static void record(long n)
// CHECK: rcl_delegate_ctx(&(&hits)->m, rcl_cs_record_1,
// CHECK: rcl_delegate_ctx(&(&misses)->m, rcl_cs_record_2,
// CHECK: rcl_delegate_ctx(&log_lock, rcl_cs_record_3,
// CHECK: rcl_delegate_ctx(&table_lock, rcl_cs_record_4,
static void record(long n)
{
    STATS_ADD(&hits, n);
    STATS_ADD(&misses, 1);
    LOG_LINE(n * 2);
    WITH_LOCK(&table_lock, table_size += n);
}

// CHECK-LABEL: static void count_line(void)
// CHECK: rcl_delegate(&table_lock, rcl_cs_count_line_1,
// CHECK: #line [[#@LINE+8]]
static void count_line(void)
{
#if HAS_THREADS
    pthread_mutex_lock(&table_lock);
#endif
    lines_seen++;
#if HAS_THREADS
    pthread_mutex_unlock(&table_lock);
#endif
    if (__LINE__ != 77) printf("line %d\n", __LINE__);
}
// KEPT: resolve-copy.c:{{[0-9]+}}:5: rcl: cannot convert critical section: the critical section is written inside a macro expansion (in macro 'STATS_ADD')
// KEPT: rcl: summary: 0 converted, 5 refused
// ERR: rcl: summary: 5 converted, 0 refused
// STATS: rcl: server {{[0-9]+}} {{.*}}: {{[1-9][0-9]*}} sections served

static void *worker(void *arg)
{
    long n = (long)arg;
    for (int i = 0; i < 3000; i++) {
        record(n);
        count_line();
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("hits=%ld misses=%ld log=%ld/%ld table=%ld lines=%ld\n", hits.v, misses.v, log_count,
           log_bytes, table_size, lines_seen);
    return 0;
}
