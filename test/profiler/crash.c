// A program that dies of a fatal signal (SIGSEGV, abort) while another thread holds a lock:
// the report is written for what was collected, and rcl-prof exits as a shell would (128+N).
// RUN: %cc %s -o %t
// RUN: %expect_status 139 %rcl-prof -o %t.segv.txt --json %t.segv.json -- %t segv
// RUN: %python %S/Inputs/profile_lines.py %t.segv.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.segv.txt
// RUN: %expect_status 134 %rcl-prof --json %t.abort.json -- %t abort
// RUN: %python %S/Inputs/profile_lines.py %t.abort.json | FileCheck %s
// CHECK: locks 2 untracked=0 threads=2 ended_by=fatal signal
// CHECK-DAG: lock {{[0-9]}} m identity=symbol acq=5
// CHECK-DAG: lock {{[0-9]}} held_forever identity=symbol acq=1
// REPORT: killed by SIGSEGV
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t held_forever = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t b;

static void *holder(void *arg) {
    (void)arg;
    pthread_mutex_lock(&held_forever);
    pthread_barrier_wait(&b);
    for (;;)
        pause();
}

int main(int argc, char **argv) {
    pthread_t t;
    pthread_barrier_init(&b, NULL, 2);
    pthread_create(&t, NULL, holder, NULL);
    pthread_barrier_wait(&b);
    for (int i = 0; i < 5; i++) {
        pthread_mutex_lock(&m);
        pthread_mutex_unlock(&m);
    }
    if (argc > 1 && strcmp(argv[1], "abort") == 0)
        abort();
    *(volatile int *)(argc > 5 ? argv : NULL) = 1;
    return 0;
}
