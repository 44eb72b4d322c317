// Lock wrappers with effects defined `static inline` in a header the file includes (jemalloc's
// malloc_mutex_lock/unlock in mutex.h): their statements are copied from the header, as from the
// file itself (lock-wrapper-with-effects.c), with `#line` naming the header's lines.
// RUN: %rcl-rewrite --all --line-directives --lock-fn=acct_lock --unlock-fn=acct_unlock %s -- %rcl_cflags -I%S/Inputs > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc -I%S/Inputs %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -I%S/Inputs %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <stdio.h>
#include "wrapper-with-effects.h"

static struct acct A = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0 };

// The CHECK lines do not match themselves (the output keeps them).
// CHECK: static void rcl_acct_unlock_before_unlock{{[(]}}struct acct *a)
// CHECK: #line 16 "{{.*}}wrapper-with-effects.h"
// CHECK-NEXT: a->waits++;
// CHECK: static void rcl_acct_lock_before_lock{{[(]}}struct acct *a)
// CHECK: #line 9 "{{.*}}wrapper-with-effects.h"
// CHECK-NEXT: my_attempts++;
// CHECK: static void rcl_acct_lock_after_lock{{[(]}}struct acct *a)
// CHECK: #line 11 "{{.*}}wrapper-with-effects.h"
// CHECK-NEXT: a->count++;
// CHECK: static void rcl_acct_unlock_after_unlock{{[(]}}struct acct *a)
// CHECK: __atomic_fetch_add{{[(]}}&a->releases, 1, __ATOMIC_RELAXED);
// CHECK: rcl_delegate_ctx{{[(]}}&A.m, rcl_cs_deposit_1,
static void deposit(long n)
{
    acct_lock(&A);
    A.balance += n;
    acct_unlock(&A);
}
// ERR: rcl: summary: 1 converted, 0 refused
// STATS: rcl: server {{[0-9]+}} {{.*}}: 4000 sections served

static void *worker(void *arg)
{
    for (int i = 0; i < 2000; i++)
        deposit((long)arg);
    return (void *)my_attempts;
}

int main(void)
{
    pthread_t t[2];
    void *attempts[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 2; i++) pthread_join(t[i], &attempts[i]);
    printf("count=%ld waits=%ld releases=%ld balance=%ld attempts=%ld,%ld\n", A.count, A.waits,
           A.releases, A.balance, (long)attempts[0], (long)attempts[1]);
    return 0;
}
