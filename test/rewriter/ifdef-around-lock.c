// Preprocessor directives and the section's boundary: a lock and an unlock each inside its own
// `#ifdef` (/work/shared/cases/ifdef_around_lock.c) was reported converted and the output did
// not compile (the `#endif` after the lock moved into the outlined function). Refused with the
// directive's line; a conditional wholly inside the section moves with it and converts.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>
#define WITH_THREADING 1

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;

// CHECK: static void inc(void)
// CHECK-NEXT: {
// CHECK-NEXT: #ifdef WITH_THREADING
// CHECK-NEXT:     pthread_mutex_lock(&m);
// CHECK-NEXT: #endif
static void inc(void)
{
#ifdef WITH_THREADING
    pthread_mutex_lock(&m);
#endif
    // ERR: ifdef-around-lock.c:[[@LINE-1]]:1: rcl: cannot convert critical section: a preprocessor conditional (#endif at line [[@LINE-1]]) crosses the boundary of the critical section
    counter++;
#ifdef WITH_THREADING
    pthread_mutex_unlock(&m);
#endif
}

// CHECK: static RCL_SECTION_INLINE int rcl_cs_add_1(void *rcl_arg)
// CHECK: #if WITH_THREADING
// CHECK-NEXT: counter += n;
// CHECK-NEXT: #else
// CHECK-NEXT: counter -= n;
// CHECK-NEXT: #endif
// CHECK: static void add(long n)
// CHECK: rcl_delegate_ctx(&m, rcl_cs_add_1, &rcl_ctx, sizeof rcl_ctx);
static void add(long n)
{
    pthread_mutex_lock(&m);
#if WITH_THREADING
    counter += n;
#else
    counter -= n;
#endif
    pthread_mutex_unlock(&m);
}
// ERR: rcl: summary: 1 converted, 1 refused

int main(void)
{
    inc();
    add(41);
    printf("%ld\n", counter);
    return 0;
}
