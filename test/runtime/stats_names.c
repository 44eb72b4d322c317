// RCL_STATS a user can rely on (stats.c, names.c): each lock is named like rcl-prof names it
// (its symbol: a global, an element of a global array, a mutex inside a global struct; else its first call site: a file-scope
// static, a lock on the heap, a program linked without -rdynamic), the text reaches the stderr
// the program started with although the program closed its stderr before exit (fclose(stderr),
// as xz does, or close(2)), and RCL_STATS=json:FILE writes the rcl-stats/1 document; each server
// says how much of its time was lost to preemption (preempt.c), unknown in local mode (no server).
// RUN: %cc %s -o %t -rdynamic %rcl_libs
// RUN: %cc %s -o %t.nordyn %rcl_libs
// RUN: env RCL_MODE=adaptive RCL_STATS=1 %t fclose 2>&1 | FileCheck %s
// RUN: env RCL_MODE=adaptive RCL_STATS=1 %t close 2>&1 | FileCheck %s
// RUN: env RCL_MODE=adaptive RCL_STATS=1 %t open 2>&1 | FileCheck %s
// CHECK: stats_names: done
// CHECK-DAG: rcl: mode adaptive
// CHECK-DAG: rcl: lock cache_lock: 1000 calls,
// CHECK-DAG: rcl: lock bucket_locks: 10 calls,
// CHECK-DAG: rcl: lock bucket_locks[1]: 300 calls,
// CHECK-DAG: rcl: lock bucket_locks[3]: 100 calls,
// CHECK-DAG: rcl: lock pair+{{[0-9]+}}: 50 calls,
// CHECK-DAG: rcl: lock site:use_hidden+0x{{[0-9a-f]+}}: 200 calls,
// CHECK-DAG: rcl: lock site:use_heap+0x{{[0-9a-f]+}}: 70 calls,
// CHECK-DAG: rcl: server 0 (cpu {{-?[0-9]+}}):
// CHECK-DAG: rcl: server 0: preempted {{[0-9]+\.[0-9]+}} s of the {{[0-9]+\.[0-9]+}} s its servicing threads wanted their CPU ({{[0-9]+\.[0-9]}} %), {{[0-9]+}} involuntary context switches
//
// Without -rdynamic no symbol of the executable is visible in-process: every lock is named by its
// first call site, as the executable's name and the address addr2line takes (checked with
// llvm-symbolizer: the call sites are in the functions that took the locks first); the three
// bucket locks, first taken at one call site, are told apart by address (@i/n).
// RUN: env RCL_MODE=adaptive RCL_STATS=1 %t.nordyn fclose 2>%t.txt
// RUN: FileCheck %s --check-prefix=NORDYN < %t.txt
// NORDYN-DAG: rcl: lock site:{{[^ ]*}}.nordyn+0x{{[0-9a-f]+}}: 1000 calls,
// NORDYN-DAG: rcl: lock site:{{[^ ]*}}.nordyn+0x[[BUCKETS:[0-9a-f]+]]@1/3: 10 calls,
// NORDYN-DAG: rcl: lock site:{{[^ ]*}}.nordyn+0x[[BUCKETS]]@2/3: 300 calls,
// NORDYN-DAG: rcl: lock site:{{[^ ]*}}.nordyn+0x[[BUCKETS]]@3/3: 100 calls,
// RUN: sed -n 's/^rcl: lock site:[^ ]*+\(0x[0-9a-f]*\)[@0-9/]*: \([0-9]*\) calls.*/\1/p' %t.txt \
// RUN:     | llvm-symbolizer --obj=%t.nordyn --no-inlines | FileCheck %s --check-prefix=SYM
// SYM-DAG: {{^}}use_cache{{$}}
// SYM-DAG: {{^}}use_buckets{{$}}
// SYM-DAG: {{^}}use_pair{{$}}
// SYM-DAG: {{^}}use_hidden{{$}}
// SYM-DAG: {{^}}use_heap{{$}}
//
// RUN: rm -f %t.json
// RUN: env RCL_MODE=adaptive RCL_STATS=json:%t.json %t fclose
// RUN: %python %S/Inputs/check_stats_json.py %t.json | FileCheck %s --check-prefix=JSON
// JSON: schema rcl-stats/1, mode adaptive, 1 server(s)
// JSON-NEXT: server 0: ran and preempted times known
// JSON-NEXT: bucket_locks symbol 10 first_site use_buckets+0x
// JSON-NEXT: bucket_locks[1] symbol 300 first_site use_buckets+0x
// JSON-NEXT: bucket_locks[3] symbol 100 first_site use_buckets+0x
// JSON-NEXT: cache_lock symbol 1000 first_site use_cache+0x
// JSON-NEXT: pair+{{[0-9]+}} symbol 50 first_site use_pair+0x
// JSON-NEXT: site:use_heap+0x{{[0-9a-f]+}} site 70 first_site use_heap+0x
// JSON-NEXT: site:use_hidden+0x{{[0-9a-f]+}} site 200 first_site use_hidden+0x
// RUN: rm -f %t.local.json
// RUN: env RCL_MODE=local RCL_STATS=json:%t.local.json %t fclose
// RUN: %python %S/Inputs/check_stats_json.py %t.local.json | FileCheck %s --check-prefix=LOCAL
// LOCAL: schema rcl-stats/1, mode local, 1 server(s)
// LOCAL-NEXT: server 0: time lost to preemption unknown
#include <rcl/rcl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t bucket_locks[4] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                   PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
struct {
    long count;
    pthread_mutex_t lock;
} pair = {0, PTHREAD_MUTEX_INITIALIZER};
static pthread_mutex_t hidden_lock = PTHREAD_MUTEX_INITIALIZER; /* never a dynamic symbol */
pthread_mutex_t *heap_lock; /* on the heap: no symbol holds it (kept: the report reads it) */

static long counter;

static int bump(void *arg) {
    (void)arg;
    counter++;
    return 0;
}

__attribute__((noinline)) void use_cache(int n) {
    for (int i = 0; i < n; i++)
        rcl_delegate(&cache_lock, bump, NULL);
}

__attribute__((noinline)) void use_buckets(int n, int b) {
    for (int i = 0; i < n; i++)
        rcl_delegate(&bucket_locks[b], bump, NULL);
}

__attribute__((noinline)) void use_pair(int n) {
    for (int i = 0; i < n; i++)
        rcl_delegate(&pair.lock, bump, NULL);
}

__attribute__((noinline)) void use_hidden(int n) {
    for (int i = 0; i < n; i++)
        rcl_delegate(&hidden_lock, bump, NULL);
}

__attribute__((noinline)) void use_heap(pthread_mutex_t *m, int n) {
    for (int i = 0; i < n; i++)
        rcl_delegate(m, bump, NULL);
}

int main(int argc, char **argv) {
    const char *how = argc > 1 ? argv[1] : "open";
    heap_lock = malloc(sizeof *heap_lock);
    pthread_mutex_init(heap_lock, NULL);
    use_cache(1000);
    use_buckets(10, 0); /* an array's first element: named by the array, as rcl-prof does */
    use_buckets(300, 1);
    use_buckets(100, 3);
    use_pair(50);
    use_hidden(200);
    use_heap(heap_lock, 70);
    printf("stats_names: done (%ld sections)\n", counter);
    fflush(stdout);
    if (!strcmp(how, "fclose"))
        fclose(stderr); /* xz's way: the stats must still reach the original stderr */
    else if (!strcmp(how, "close"))
        close(2);
    return 0;
}
