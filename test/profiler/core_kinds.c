// On a machine with more than one core kind (emulated here with RCL_CPU_KINDS, as the runtime
// does), hold time is split by the kind of core the critical section ran on; a symmetric
// machine shows no split.
// RUN: %cc %s -o %t
// RUN: env RCL_CPU_KINDS='little=0;big=1-1023' %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// RUN: %rcl-prof --json %t.sym.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.sym.json | FileCheck %s --check-prefix=SYM
// CHECK: lock 1 m identity=symbol acq=200
// CHECK: kinds m little={{.*}} big=
// SYM: lock 1 m identity=symbol acq=200
// SYM-NOT: kinds m
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "Inputs/spin.h"

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int main(void) {
    for (int i = 0; i < 200; i++) {
        pthread_mutex_lock(&m);
        spin_ns(1000);
        pthread_mutex_unlock(&m);
    }
    return 0;
}
