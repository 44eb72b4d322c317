// Stepping off (placement.c): in adaptive mode on a machine where clients keep the servers'
// cores (2 CPUs), a thread moves off its server's core while its lock delegates and back onto
// every CPU once it runs the lock locally again; a thread whose CPUs the program chose (before
// any thread stepped off) is left where it is; a thread created while its creator was off
// inherits that and gets every CPU back at its first call, and a child forked meanwhile has
// every CPU. RCL_ADAPTIVE_FLIP makes each thread
// alternate between the two paths every 64 calls. Without the stepping, the thread keeps every
// CPU while it delegates ("on the server's core while delegating").
// RUN: %cc %rcl_internal %s -o %t %rcl_libs
// RUN: env RCL_MODE=adaptive RCL_ADAPTIVE_FLIP=64 %t | FileCheck %s
// RUN: env RCL_MODE=adaptive RCL_ADAPTIVE_FLIP=64 RCL_CLIENT_AFFINITY=any %t | FileCheck %s --check-prefix=ANY
// CHECK: pinned by the program: left alone
// CHECK-NEXT: delegating: off the server's core
// CHECK-NEXT: local again: every CPU
// CHECK-NEXT: created while off: every CPU at its first call
// CHECK-NEXT: forked while off: every CPU in the child
// ANY: pinned by the program: left alone
// ANY-NEXT: delegating: every CPU (not moved)
// ANY-NEXT: local again: every CPU
#include "Inputs/harness.h"
#include "internal.h"
#include <rcl/rcl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static pthread_t caller;
static int ran_away; /* the last call ran on another thread (delegated) */

static int body(void *arg) {
    (void)arg;
    counter++;
    ran_away = !pthread_equal(pthread_self(), caller);
    return 0;
}

static int cpus_now(cpu_set_t *set) {
    CHECK(pthread_getaffinity_np(pthread_self(), sizeof *set, set) == 0);
    return CPU_COUNT(set);
}

/* One call; returns whether it was delegated. */
static _Atomic long calls;
static int call(void) {
    calls++;
    caller = pthread_self();
    rcl_delegate(&m, body, NULL);
    return ran_away;
}

static cpu_set_t all;

static void *pinned(void *arg) {
    (void)arg;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    CHECK(pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0);
    int delegated = 0;
    for (int i = 0; i < 256; i++) {
        delegated += call();
        cpu_set_t now;
        cpus_now(&now);
        CHECK(CPU_EQUAL(&now, &one));
    }
    CHECK(delegated > 0);
    printf("pinned by the program: left alone\n");
    return NULL;
}

static void *child(void *arg) {
    cpu_set_t *inherited = arg, now;
    cpus_now(inherited);
    while (call()) /* its first calls, until one runs locally */
        ;
    cpus_now(&now);
    CHECK(CPU_EQUAL(&now, &all));
    return NULL;
}

int main(void) {
    if (cpus_now(&all) < 2) { /* nowhere to step to: what the checks expect, unchecked */
        printf("pinned by the program: left alone\ndelegating: off the server's core\nlocal "
               "again: every CPU\ncreated while off: every CPU at its first call\nforked while "
               "off: every CPU in the child\n");
        return 0;
    }
    pthread_t t;
    CHECK(pthread_create(&t, NULL, pinned, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    /* main: delegated calls move it off the server's core, local ones move it back */
    int off = 0, back = 0, on_server_core = 0;
    for (int i = 0; i < 1024; i++) {
        int delegated = call();
        cpu_set_t now;
        int n = cpus_now(&now);
        if (delegated) {
            if (n < CPU_COUNT(&all))
                off++;
            else
                on_server_core++;
        } else {
            CHECK(n == CPU_COUNT(&all));
            back++;
        }
    }
    CHECK(off + on_server_core > 0 && back > 0);
    if (on_server_core)
        printf("delegating: %s\n", off ? "on the server's core now and then"
                                       : "every CPU (not moved)");
    else
        printf("delegating: off the server's core\n");
    printf("local again: every CPU\n");
    /* a thread created while main is off */
    while (!call())
        ;
    cpu_set_t inherited;
    CHECK(pthread_create(&t, NULL, child, &inherited) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    if (!on_server_core) {
        CHECK(CPU_COUNT(&inherited) < CPU_COUNT(&all));
        printf("created while off: every CPU at its first call\n");
    }
    /* a child forked while main is off (what it runs, or executes, is not a client) */
    while (!call())
        ;
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        cpu_set_t now;
        cpus_now(&now);
        _exit(CPU_EQUAL(&now, &all) ? 0 : 3);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!on_server_core) printf("forked while off: every CPU in the child\n");
    CHECK(counter == calls); /* no section lost or run twice across the moves */
    return 0;
}
