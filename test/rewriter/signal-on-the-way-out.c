// A callee that raises a signal on its way to ending the process (PulseAudio's `oom()`, which
// pa_xmalloc calls when malloc fails: write a message, `raise(SIGQUIT)`, `_exit(1)`; 30 of its
// sections were refused for it) changes nothing that outlives the process, as abort() itself,
// which any section may call: the section converts. A callee that raises and goes on, or ends
// the process only on some paths, still makes its sections stay as written.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.c
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *table[64];
static int used;

static void oom(void) __attribute__((noreturn));
static void oom(void)
{
    static const char e[] = "Not enough memory\n";
    if (write(STDERR_FILENO, e, sizeof(e) - 1) < 0) {
    }
    raise(SIGQUIT);
    _exit(1);
}

static void *xmalloc(size_t size)
{
    void *p = malloc(size);
    if (!p)
        oom();
    return p;
}

static void warn_and_go_on(void)
{
    raise(SIGUSR1);
}

static void maybe_die(int bad)
{
    raise(SIGQUIT);
    if (bad)
        _exit(1);
}

void add(void)
{
    pthread_mutex_lock(&m);
    table[used++ % 64] = xmalloc(16);
    pthread_mutex_unlock(&m);
}
// OUT: void add(void)
// OUT: rcl_delegate

void add_noisy(void)
{
    pthread_mutex_lock(&m);
    // CHECK: signal-on-the-way-out.c:[[@LINE+1]]:5: rcl: cannot convert critical section: calls 'warn_and_go_on', which changes or uses the calling thread's signal state (signal-on-the-way-out.c:38)
    warn_and_go_on();
    used++;
    pthread_mutex_unlock(&m);
}

void add_or_die(int bad)
{
    pthread_mutex_lock(&m);
    // CHECK: signal-on-the-way-out.c:[[@LINE+1]]:5: rcl: cannot convert critical section: calls 'maybe_die', which changes or uses the calling thread's signal state (signal-on-the-way-out.c:43)
    maybe_die(bad);
    used++;
    pthread_mutex_unlock(&m);
}
// CHECK: rcl: summary: 1 converted, 2 refused
