// Case 8, a condition wait spelled through a function-like macro (`#define WAIT_FOR(c, mu)
// pthread_cond_wait(&(c), &(mu))`): the macro's definition stays as it is (other uses keep the
// pthread call), and the outlined function alone is compiled with `#define pthread_cond_wait
// rcl_cond_wait` (push_macro/pop_macro around it), with a note. Was refused ("the condition
// wait is written inside macro 'WAIT_FOR'"). A delegated waiter is woken by a local signaller.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && timeout 60 %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && timeout 60 %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local timeout 60 %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define WAIT_FOR(c, mu) pthread_cond_wait(&(c), &(mu))

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, v;

// CHECK: #define WAIT_FOR(c, mu) pthread_cond_wait(&(c), &(mu))
// CHECK: #pragma push_macro("pthread_cond_wait")
// CHECK-NEXT: #undef pthread_cond_wait
// CHECK-NEXT: #define pthread_cond_wait rcl_cond_wait
// CHECK-NEXT: static RCL_SECTION_INLINE int rcl_cs_waiter_1(void *rcl_arg)
// CHECK: WAIT_FOR(cv, m);
// CHECK: }
// CHECK-NEXT: #pragma pop_macro("pthread_cond_wait")
static void *waiter(void *a)
{
    (void)a;
    pthread_mutex_lock(&m);
    while (!ready)
        WAIT_FOR(cv, m);
    // ERR: condition-wait-in-macro.c:[[@LINE-1]]:9: rcl: note: converted critical section has a condition wait written inside a macro (pthread_cond_wait): the outlined function is compiled with '#define pthread_cond_wait rcl_cond_wait'
    v++;
    pthread_mutex_unlock(&m);
    return NULL;
}

// The signaller is left local (trylock), so the wait must let it through.
static void signal_ready(void)
{
    while (pthread_mutex_trylock(&m) != 0)
        usleep(100);
    ready = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&m);
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    usleep(20000);
    signal_ready();
    pthread_join(t, NULL);
    printf("v=%d\n", v);
    return 0;
}
// ERR: rcl: summary: 1 converted, 1 refused
