// Calls that act on the calling thread would act on the server: renaming it (prctl
// PR_SET_NAME, pthread_setname_np(pthread_self())), its CPU affinity, its priority, its thread
// id (gettid, syscall(SYS_gettid); with --librcl-thread-queries they convert:
// gettid-as-caller.test), its signal mask (sigprocmask, sigsuspend) and its CPU time
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID), getrusage(RUSAGE_THREAD); another clock, or the
// process's usage, converts). Refused
// (/work/shared/cases/thread_rename_in_section.c was converted and renamed the server); the
// file stays byte-identical.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t title_lock = PTHREAD_MUTEX_INITIALIZER;
static char title[16];
static long v;

void set_title(const char *t)
{
    pthread_mutex_lock(&title_lock);
    snprintf(title, sizeof title, "%s", t);
    prctl(PR_SET_NAME, title);
    // CHECK: thread-attributes-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: acts on the calling thread (prctl), which would be the server
    pthread_mutex_unlock(&title_lock);
}

void attributes(cpu_set_t *cpus, sigset_t *set)
{
    pthread_mutex_lock(&title_lock);
    pthread_setname_np(pthread_self(), title);
    // CHECK: thread-attributes-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: acts on the calling thread (pthread_setname_np), which would be the server
    pthread_mutex_unlock(&title_lock);
    pthread_mutex_lock(&title_lock);
    v = sched_setaffinity(0, sizeof *cpus, cpus);
    // CHECK: thread-attributes-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: acts on the calling thread (sched_setaffinity), which would be the server
    pthread_mutex_unlock(&title_lock);
    pthread_mutex_lock(&title_lock);
    v = setpriority(PRIO_PROCESS, 0, 1);
    // CHECK: thread-attributes-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: acts on the calling thread (setpriority), which would be the server
    pthread_mutex_unlock(&title_lock);
    pthread_mutex_lock(&title_lock);
    v = gettid();
    // CHECK: thread-attributes-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: asks its thread's kernel id (gettid)
    pthread_mutex_unlock(&title_lock);
    pthread_mutex_lock(&title_lock);
    v = syscall(SYS_gettid);
    // CHECK: thread-attributes-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: asks its thread's kernel id (gettid)
    pthread_mutex_unlock(&title_lock);
    pthread_mutex_lock(&title_lock);
    sigprocmask(SIG_BLOCK, set, NULL);
    // CHECK: thread-attributes-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: changes or uses the calling thread's signal state
    pthread_mutex_unlock(&title_lock);
    pthread_mutex_lock(&title_lock);
    v = sigsuspend(set);
    // CHECK: thread-attributes-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: changes or uses the calling thread's signal state
    pthread_mutex_unlock(&title_lock);
}

void cpu_time(struct timespec *ts, struct rusage *ru)
{
    pthread_mutex_lock(&title_lock);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, ts);
    // CHECK: thread-attributes-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: measures the calling thread's CPU time (clock_gettime), which would be the server's
    pthread_mutex_unlock(&title_lock);
    pthread_mutex_lock(&title_lock);
    getrusage(RUSAGE_THREAD, ru);
    // CHECK: thread-attributes-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: measures the calling thread's CPU time (getrusage), which would be the server's
    pthread_mutex_unlock(&title_lock);
}
// CHECK: rcl: summary: 0 converted, 10 refused
