// Lock wrappers that do more than lock (`lock(x) { pthread_mutex_lock(&x->m); x->count++; }`, a
// count before the lock, statistics after it) and an unlock wrapper that does something after
// its unlock: the statements before a lock wrapper's lock run on the calling thread before the
// section is delegated, those after it first thing in the outlined function, with the lock held
// (on the server); an unlock wrapper's statements after its unlock run on the calling thread
// once the section returned, before its exit's tail. Each is copied once into a static function
// with the wrapper's parameters. What runs on the server gets the thread-identity checks
// (wrapper-with-effects-refused.c).
// RUN: %rcl-rewrite --all --lock-fn=acct_lock --unlock-fn=acct_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

struct acct { pthread_mutex_t m; long count, waits, releases, balance; };
static __thread long my_attempts;

static void acct_lock(struct acct *a)
{
    my_attempts++;                 /* the caller's own counter: stays on the caller */
    pthread_mutex_lock(&a->m);
    a->count++;                    /* under the lock: runs on the server */
}

static void acct_unlock(struct acct *a)
{
    a->waits++;                    /* before the unlock: in the section, on the server */
    pthread_mutex_unlock(&a->m);
    __atomic_fetch_add(&a->releases, 1, __ATOMIC_RELAXED);
}

static struct acct A = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0 };

// CHECK: static void rcl_acct_lock_before_lock(struct acct *a)
// CHECK: my_attempts++;
// CHECK: static void rcl_acct_lock_after_lock(struct acct *a)
// CHECK: a->count++;
// CHECK: static void rcl_acct_unlock_before_unlock(struct acct *a)
// CHECK: a->waits++;
// CHECK: static void rcl_acct_unlock_after_unlock(struct acct *a)
// CHECK: __atomic_fetch_add(&a->releases, 1, __ATOMIC_RELAXED);
// CHECK-LABEL: static RCL_SECTION_INLINE int rcl_cs_deposit_1(void *rcl_arg)
// CHECK: rcl_acct_lock_after_lock(rcl_ctx->rcl_lock_arg0);
// CHECK: rcl_acct_lock_before_lock(&A);
// CHECK: int rcl_exit = rcl_delegate_ctx(&A.m, rcl_cs_deposit_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT: rcl_acct_unlock_after_unlock(&A);
static int deposit(long n)
{
    acct_lock(&A);
    if (n < 0) {
        acct_unlock(&A);
        return -1;
    }
    A.balance += n;
    acct_unlock(&A);
    return 0;
}
// ERR: rcl: summary: 1 converted, 0 refused
// STATS: rcl: server {{[0-9]+}} {{.*}}: 4000 sections served

static void *worker(void *arg)
{
    long n = (long)arg;
    for (int i = 0; i < 2000; i++)
        deposit(i % 5 == 0 ? -1 : n);
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
