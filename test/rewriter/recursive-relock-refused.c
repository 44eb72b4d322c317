// A recursive mutex locked twice (libuv's test/test-mutexes.c): the outer section holds the
// lock when it is taken again, with no unlock in between, so its refusal says that; it was
// refused as "the lock is released and taken again", which is false. An unlock followed by a
// lock inside a section keeps that reason (the relock, held past its block, is a third
// refusal). The inner pair converts; the program, whose caller holds the recursive mutex when
// it delegates, prints the same in every mode.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: %cc -Wall -Wextra -Werror %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -Wall -Wextra -Werror %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m, plain = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void twice(void)
{
    pthread_mutex_lock(&m);
    pthread_mutex_lock(&m);
    // CHECK-DAG: recursive-relock-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: the lock is taken again inside the critical section while it is held (a recursive lock)
    counter++;
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&m);
}

static void relock(void)
{
    pthread_mutex_lock(&plain);
    counter++;
    if (counter > 100) {
        pthread_mutex_unlock(&plain);
        pthread_mutex_lock(&plain);
        // CHECK-DAG: recursive-relock-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: the lock is released and taken again inside the critical section
    }
    counter++;
    pthread_mutex_unlock(&plain);
}
// CHECK: rcl: summary: 1 converted, 3 refused

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&m, &a);
    for (int i = 0; i < 3; i++) twice();
    relock();
    printf("counter=%d\n", counter);
    return 0;
}
