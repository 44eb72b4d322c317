// A variable declared in the section whose address is taken there may be reached through that
// address after the section (here through pp, which is used after the unlock): it must outlive
// the outlined function, so it is hoisted like a variable used after the section. Before the
// fix, p stayed a local of the outlined function and pp pointed into its dead frame (the
// differential campaign's 10 mismatches; AddressSanitizer: stack-use-after-return). The
// converted program runs under AddressSanitizer with use-after-return detection always on.
// An array whose address escapes (decays to a pointer stored outside) moves before the call
// whole, with its constant initializer.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %c_compiler -std=gnu11 -g -O1 -Wall -Wextra -Werror -pthread -I%rcl_src/runtime/include -fsanitize=address -fsanitize-address-use-after-return=always %t.c -o %t.rcl %rcl_obj/runtime/librcl.a -lhwloc -pthread
// RUN: %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.local.out
// UNSUPPORTED: sanitizer
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int g = 7;
static int *escaped;

// CHECK: int pointer_to_pointer(void)
// CHECK: int *p = &g;
// CHECK: rcl_delegate_ctx(&m,
int pointer_to_pointer(void) {
    pthread_mutex_lock(&m);
    int *p = &g;
    int **pp = &p;
    g++;
    pthread_mutex_unlock(&m);
    return **pp;
}

// DIAG: rcl: summary: 2 converted, 0 refused
// CHECK: int array_escapes(void)
// CHECK: int a[2] = {1, 2};
// CHECK: rcl_delegate_ctx(&m,
int array_escapes(void) {
    pthread_mutex_lock(&m);
    int a[2] = {1, 2};
    escaped = a;
    pthread_mutex_unlock(&m);
    return escaped[1];
}

int main(void) {
    printf("%d\n", pointer_to_pointer());
    printf("%d\n", pointer_to_pointer());
    printf("%d\n", array_escapes());
    return 0;
}
