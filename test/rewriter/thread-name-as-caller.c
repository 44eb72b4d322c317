// A section whose callee asks its thread's name, prctl(PR_GET_NAME) (PulseAudio's
// pa_get_binary_name, reached from its log lines in 28 sections), converts with
// --librcl-thread-queries, run on the server as its caller: rcl-cc's links route prctl through
// librcl (-Wl,--wrap=prctl), which answers such a section with its caller's name, read where the
// kernel keeps it (runtime/src/caller.c, "The caller's thread id and name"). Each worker names
// itself and counts the sections that saw its name; linked without the wraps, every section
// would see the server's name. Without the option the section is refused, and a prctl that
// sets the name stays refused with it (thread-attributes-refused.c).
// REQUIRES: thread-id-wrap
// UNSUPPORTED: sanitizer
// RUN: %rcl-rewrite --all --librcl-thread-queries %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs -Wl,--wrap=gettid,--wrap=syscall,--wrap=prctl
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
// RUN: %rcl-rewrite --all %s -- %rcl_cflags 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAIN
// ERR: rcl: note: converted critical section runs on the server as its caller (with the caller's thread-local storage): it calls 'log_line', which asks its thread's name (prctl PR_GET_NAME)
// ERR: rcl: summary: 1 converted, 0 refused
// STATS: 2000 run as their caller, 0 in their caller
// PLAIN: cannot convert critical section: calls 'log_line', which asks its thread's name (prctl PR_GET_NAME)
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long lines, named[2];

static void log_line(int id) {
    char name[17] = {0}, want[16];
    snprintf(want, sizeof want, "worker-%d", id);
    if (prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0) == 0 && strcmp(name, want) == 0)
        named[id]++;
    lines++;
}

static void *worker(void *arg) {
    int id = (int)(long)arg;
    char name[16];
    snprintf(name, sizeof name, "worker-%d", id);
    pthread_setname_np(pthread_self(), name);
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&m);
        log_line(id);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("lines=%ld named=%ld %ld\n", lines, named[0], named[1]);
    return 0;
}
