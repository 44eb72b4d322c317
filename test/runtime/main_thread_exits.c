// The main thread ends with pthread_exit (unbound's unittest does) and the program's other
// thread ends later: the process must end then, with status 0, as the original does (glibc's
// last thread calls exit(0)). librcl's threads never exit on their own and block every signal:
// the converted unittest stayed alive for ever, its main thread a zombie (a timeout's SIGTERM
// cannot reach it either, hence -k). An idle server looks for this after each long park.
// (Not under a sanitizer: its runtime's own thread, ThreadSanitizer's background one, cannot be
// told from the program's, so the process stays there.)
// UNSUPPORTED: sanitizer
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_MODE=delegate timeout -k 2 30 %t | FileCheck %s
// RUN: env RCL_MODE=adaptive timeout -k 2 30 %t | FileCheck %s
// RUN: env RCL_MODE=local timeout -k 2 30 %t | FileCheck %s
// CHECK: main leaves
// CHECK-NEXT: worker done: 2000
#include <pthread.h>
#include <rcl/rcl.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n;

static int bump(void *arg) {
    (void)arg;
    n++;
    return 0;
}

static void *worker(void *arg) {
    (void)arg;
    usleep(100000); /* after main has left */
    for (int i = 0; i < 1000; i++)
        rcl_delegate(&m, bump, NULL);
    printf("worker done: %ld\n", n);
    fflush(stdout);
    return NULL;
}

int main(void) {
    for (int i = 0; i < 1000; i++)
        rcl_delegate(&m, bump, NULL);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    printf("main leaves\n");
    fflush(stdout);
    pthread_exit(NULL);
}
