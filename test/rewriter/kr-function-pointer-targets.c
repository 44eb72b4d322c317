// A function defined without a prototype (K&R: `static void on_interrupt(signo) int signo;`)
// whose address is taken (a SIGINT handler that longjmps, krb5's ss/listen.c) can be called
// without undefined behaviour only through a pointer whose parameters are its own after the
// default argument promotions: here `void (*)(int)`, not the `void (*)(void *)` cleanup
// callback that the section calls (a parameter: any address-taken function of its type). So the section converts; it was refused as calling a
// function that "uses setjmp/longjmp" (16 of krb5's sections). A pointer of the handler's own
// type still reaches it: that section is refused.
// RUN: %rcl-rewrite --all --facts-complete %s -- %rcl_cflags -Wno-deprecated-non-prototype > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc -Wno-deprecated-non-prototype %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -Wno-deprecated-non-prototype %t.c -o %t.rcl %rcl_libs && env RCL_MODE=delegate %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static jmp_buf back;
static long counter;

static void on_interrupt();
static int is_ours(void (*h)())
{
    return h == (void (*)())on_interrupt;
}

static void on_interrupt(signo)
    int signo;
{
    (void)signo;
    longjmp(back, 1);
}

static void release_item(void *item)
{
    counter += (long)item;
}

static void (*handler)(int);

// ERR-NOT: {{.*}}:[[# @LINE+3]]:{{.*}}cannot convert
static void drop(long item, void (*done)(void *))
{
    pthread_mutex_lock(&m);
    done((void *)item);
    pthread_mutex_unlock(&m);
}

// ERR: kr-function-pointer-targets.c:[[# @LINE+4]]:18: rcl: cannot convert critical section: calls 'on_interrupt' through pointer 'handler', which uses setjmp/longjmp, which cannot cross threads
static void signal_it(void)
{
    pthread_mutex_lock(&m);
    if (handler) handler(0);
    pthread_mutex_unlock(&m);
}

int main(void)
{
    struct sigaction sa;
    sa.sa_handler = on_interrupt;
    if (!is_ours((void (*)())sa.sa_handler)) return 2;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, NULL);
    handler = NULL;
    if (setjmp(back)) return 1;
    for (long i = 0; i < 100; i++)
        drop(i, release_item);
    signal_it();
    printf("%ld\n", counter);
    return 0;
}
// ERR: rcl: summary: 1 converted, 1 refused
