// Uses of a function's name that do not make it a target of other pointer types: a cast whose
// result is cast again at once (glib's `(GDestroyNotify) (void (*)(void)) func`, which only
// silences -Wcast-function-type: PulseAudio's GStreamer autoptr cleanups became targets of
// every `void (*)(void)`), and the address given to dladdr, which only looks it up (PulseAudio's
// `dladdr(&_main, ...)`, a weak reference to main declared without a prototype: a target of
// every pointer to a function returning int). The sections calling such pointers convert.
// RUN: %rcl-rewrite --all --facts-complete %s -- %rcl_cflags -Wno-deprecated-non-prototype > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// The same with the program's facts recorded (the file's own, as `rcl build` records them),
// where a target without a definition is one whose facts are not known:
// RUN: rm -rf %t.facts && %rcl-rewrite --all --dry-run --facts-dir=%t.facts %s -- %rcl_cflags -Wno-deprecated-non-prototype 2>/dev/null
// RUN: %rcl-rewrite --all --dry-run --facts-dir=%t.facts --facts-complete %s -- %rcl_cflags -Wno-deprecated-non-prototype 2> %t.facts.err
// RUN: FileCheck %s --check-prefix=ERR < %t.facts.err
// RUN: %cc -Wno-deprecated-non-prototype %s -o %t.orig -ldl && %t.orig > %t.orig.out
// RUN: %cc -Wno-deprecated-non-prototype %t.c -o %t.rcl %rcl_libs -ldl && env RCL_MODE=delegate %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*destroy_fn)(void *);
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static jmp_buf back;
static long counter;
static destroy_fn on_destroy;

static void leave(void *p)
{
    (void)p;
    longjmp(back, 1);
}

static void setup(void)
{
    counter++;
}

static int self_reference() __attribute__((weakref("main")));

static int by_value(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

// ERR-NOT: cannot convert critical section
static void run_once(void (*init)(void))
{
    pthread_mutex_lock(&m);
    init();
    pthread_mutex_unlock(&m);
}

static int compare(int (*cmp)(const void *, const void *), int x, int y)
{
    int r;
    pthread_mutex_lock(&m);
    r = cmp(&x, &y);
    pthread_mutex_unlock(&m);
    return r;
}

int main(void)
{
    Dl_info info;
    on_destroy = (destroy_fn)(void (*)(void))leave;
    if (setjmp(back)) return 1;
    if (!dladdr(&self_reference, &info)) return 2;
    run_once(setup);
    printf("%ld %d\n", counter, compare(by_value, 3, 2) > 0);
    if (!on_destroy) return 3;
    return 0;
}
// ERR: rcl: summary: 2 converted, 0 refused
