// A program converted to RCL is profiled too: its delegated critical sections are attributed
// to their lock and call site (kind delegate) with the time the server spent, and the
// server's own locking of that lock is not counted again (exactly one acquisition per
// rcl_delegate call). In RCL_MODE=local the same calls are counted through pthread_mutex_lock,
// still at the rcl_delegate call site. In RCL_MODE=adaptive (forced to switch every 2 calls)
// each call is counted once, whichever path it took.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s --check-prefixes=CHECK,DELEG
// RUN: env RCL_MODE=local %rcl-prof --json %t.local.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.local.json | FileCheck %s --check-prefixes=CHECK,LOCAL
// RUN: env RCL_MODE=adaptive RCL_ADAPTIVE_FLIP=2 %rcl-prof --json %t.adaptive.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.adaptive.json | FileCheck %s --check-prefixes=CHECK,ADAPTIVE
// CHECK: threads=3
// DELEG-DAG: lock {{[0-9]}} delegated_lock identity=symbol acq=4000 contended=0 tryfail=0 timeouts=0 delegated=4000
// LOCAL-DAG: lock {{[0-9]}} delegated_lock identity=symbol acq=4000 {{.*}} delegated=0
// ADAPTIVE-DAG: lock {{[0-9]}} delegated_lock identity=symbol acq=4000 {{.*}} delegated={{[1-9][0-9]*}}
// CHECK-DAG: lock {{[0-9]}} plain_lock identity=symbol acq=4000
#include <pthread.h>
#include <rcl/rcl.h>

#include "Inputs/spin.h"

#define THREADS 2
#define ITERS 2000

pthread_mutex_t delegated_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t plain_lock = PTHREAD_MUTEX_INITIALIZER;
static long delegated_count, plain_count;

static int critical_section(void *ctx) {
    (void)ctx;
    spin_ns(500);
    delegated_count++;
    return 0;
}

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        rcl_delegate(&delegated_lock, critical_section, NULL); // CHECK-DAG: site delegated_lock delegated_cs.c:[[@LINE]] delegate 4000
        pthread_mutex_lock(&plain_lock);
        plain_count++;
        pthread_mutex_unlock(&plain_lock);
    }
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return delegated_count != THREADS * ITERS || plain_count != THREADS * ITERS;
}
