// A section refused for what it does itself is not waiting for other files' facts, even when
// it also calls a function of another file whose facts are not known, before or after: no
// facts could convert it, so `rcl build` must not compile it again, nor count it as waiting
// (`later` did, the first reason standing). A section refused only for unknown callees waits,
// and names every function without facts it reaches, not only the first (`both`).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %rcl-rewrite --all --dry-run --report-json=%t/r.json %s -- %rcl_cflags 2> %t/err
// RUN: FileCheck %s < %t/r.json
// CHECK: "unknown_callees": [
// CHECK-NEXT: "other_file_a",
// CHECK-NEXT: "other_file_b"
// CHECK-NEXT: ],
// CHECK: "function": "later",
// CHECK-NEXT: "line": 43,
// CHECK-NEXT: "reason": "acts on the calling thread (sched_getscheduler), which would be the server",
// CHECK: "waiting_for_facts": 1
#include <pthread.h>

void other_file_a(void);
void other_file_b(void);
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long owner, n;

void own(void)
{
    pthread_mutex_lock(&m);
    owner = (long)sched_getscheduler(0);
    other_file_a();
    pthread_mutex_unlock(&m);
}

void both(void)
{
    pthread_mutex_lock(&m);
    n++;
    other_file_a();
    other_file_b();
    pthread_mutex_unlock(&m);
}

void later(void)
{
    pthread_mutex_lock(&m);
    other_file_b();
    owner = (long)sched_getscheduler(0);
    pthread_mutex_unlock(&m);
}
