// Globals declared on the line of the function that uses them (generated or minified code):
// the outlined function was inserted at the start of the line, before `int x;`, and the
// rewritten file did not compile (/work/shared/cases/declarations_on_the_function_line.c).
// It goes right before the function, after the declarations.
// REQUIRES: tools
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c
// RUN: FileCheck %s < %t.c
// RUN: rm -rf %t.d && mkdir %t.d && cp %s %t.d/t.c
// RUN: cd %t.d && %c_compiler -pthread t.c -o plain && ./plain > plain.out
// RUN: cd %t.d && env RCL_CC_STRICT=1 %rcl-cc -O2 -g t.c -o rcl 2> rcl.err && ./rcl > rcl.out
// RUN: FileCheck %s --check-prefix=CC < %t.d/rcl.err
// RUN: diff %t.d/plain.out %t.d/rcl.out
// CC: rcl-cc: t.c: 1 section converted, 0 refused
#include <pthread.h>
#include <stdio.h>
// CHECK: pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; int x;{{ *}}
// CHECK-NEXT: #include <rcl/rcl.h>
// CHECK: static RCL_SECTION_INLINE int rcl_cs_f_1(void *rcl_arg)
// CHECK: void f(void) {
// CHECK-NEXT: rcl_delegate(&m, rcl_cs_f_1, (void *)0);
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; int x; void f(void) { pthread_mutex_lock(&m); x++; pthread_mutex_unlock(&m); printf("%s:%d\n", __FILE__, __LINE__); }
int main(void) { f(); printf("%d %s:%d\n", x, __FILE__, __LINE__); return x - 1; }
