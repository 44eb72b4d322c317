// A recursive mutex locked again by its holder: every lock call is an acquisition, none is
// contended (the lock word is taken, but by this thread), and unlocks pair up innermost first.
// RUN: %cc %s -o %t
// RUN: %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// CHECK: lock 1 r identity=symbol acq=400 contended=0 tryfail=0
#define _GNU_SOURCE
#include <pthread.h>

pthread_mutex_t r = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

int main(void) {
    for (int i = 0; i < 200; i++) {
        pthread_mutex_lock(&r); // CHECK-DAG: site r recursive_mutex.c:[[@LINE]] lock 200
        pthread_mutex_lock(&r); // CHECK-DAG: site r recursive_mutex.c:[[@LINE]] lock 200
        pthread_mutex_unlock(&r);
        pthread_mutex_unlock(&r);
    }
    return 0;
}
