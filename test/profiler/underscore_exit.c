// A program that leaves through _exit (no atexit handlers, no destructors) still gets its
// report, and its exit status is passed through.
// RUN: %cc %s -o %t
// RUN: %expect_status 3 %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// CHECK: locks 1 untracked=0 threads=1 ended_by=_exit exit=3
// CHECK-NEXT: lock 1 m identity=symbol acq=7
#include <pthread.h>
#include <unistd.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int main(void) {
    for (int i = 0; i < 7; i++) {
        pthread_mutex_lock(&m);
        pthread_mutex_unlock(&m);
    }
    _exit(3);
}
