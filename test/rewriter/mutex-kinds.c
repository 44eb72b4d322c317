// Case 17: recursive and error-checking mutexes initialised at run time, static
// initialisers, mutexes in structs, arrays of mutexes and mutexes passed by pointer all
// convert the same way: the section only needs the mutex's address.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

struct account {
    pthread_mutex_t lock;
    long balance;
};

static pthread_mutex_t recursive, errorcheck;
static pthread_mutex_t stripes[4] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                     PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static long totals[4], events;

// CHECK: rcl_delegate_ctx(mp, rcl_cs_through_pointer_1, &rcl_ctx, sizeof rcl_ctx);
static void through_pointer(pthread_mutex_t *mp, long *out, long n)
{
    pthread_mutex_lock(mp);
    *out += n;
    pthread_mutex_unlock(mp);
}

// CHECK: rcl_delegate_ctx(&a->lock, rcl_cs_deposit_1, &rcl_ctx, sizeof rcl_ctx);
static void deposit(struct account *a, long n)
{
    pthread_mutex_lock(&a->lock);
    a->balance += n;
    pthread_mutex_unlock(&a->lock);
}

// CHECK: rcl_delegate_ctx(&stripes[i % 4], rcl_cs_stripe_1, &rcl_ctx, sizeof rcl_ctx);
static void stripe(int i)
{
    pthread_mutex_lock(&stripes[i % 4]);
    totals[i % 4] += i;
    pthread_mutex_unlock(&stripes[i % 4]);
}

// CHECK: rcl_delegate(&recursive, rcl_cs_kinds_1, (void *)0);
// CHECK: rcl_delegate(&errorcheck, rcl_cs_kinds_2, (void *)0);
static void kinds(void)
{
    pthread_mutex_lock(&recursive);
    events++;
    pthread_mutex_unlock(&recursive);
    pthread_mutex_lock(&errorcheck);
    events += 2;
    pthread_mutex_unlock(&errorcheck);
}

int main(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&recursive, &attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&errorcheck, &attr);
    pthread_mutexattr_destroy(&attr);
    struct account acc;
    pthread_mutex_init(&acc.lock, NULL);
    acc.balance = 0;
    for (int i = 0; i < 10; i++) {
        deposit(&acc, i);
        stripe(i);
        through_pointer(&acc.lock, &events, 1);
        kinds();
    }
    printf("%ld %ld %ld %ld %ld %ld\n", acc.balance, events, totals[0], totals[1], totals[2],
           totals[3]);
    return 0;
}
// SUMMARY: rcl: summary: 5 converted, 0 refused
