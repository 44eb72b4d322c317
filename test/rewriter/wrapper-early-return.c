// A wrapper that returns early before its operation (libxml2's xmlMutexLock: `if (tok ==
// NULL) return; if (libxml_is_threaded != 0) pthread_mutex_lock(&tok->lock);`) does nothing
// when the early return's condition holds: the condition folds into the wrapper's own, and the
// section is an optional lock, delegated when the mutex is there and run in place, without a
// lock, when it is not (a null mutex at start-up), as the original did. A wrapper that returns
// early and also does other things is refused (its copied statements would not test the
// condition). libxml2's 28 sections through these wrappers were refused (and, before, counted
// converted without ever delegating). The same pair defined in another file:
// wrapper-early-return-across-files.test.
// RUN: %rcl-rewrite --all --lock-fn=xlock --unlock-fn=xunlock --lock-fn=cnt_lock --unlock-fn=cnt_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.c
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { pthread_mutex_t lock; long count; } xmutex;
static int threaded = 1;
void xlock(xmutex *tok) {
    if (tok == NULL)
        return;
    if (threaded != 0)
        pthread_mutex_lock(&tok->lock);
}
void xunlock(xmutex *tok) {
    if (tok == NULL)
        return;
    if (threaded != 0)
        pthread_mutex_unlock(&tok->lock);
}
int cnt_lock(xmutex *tok) {
    if (!tok)
        return 0;
    tok->count++;
    return pthread_mutex_lock(&tok->lock);
}
int cnt_unlock(xmutex *tok) {
    if (!tok)
        return 0;
    return pthread_mutex_unlock(&tok->lock);
}

static xmutex *m;
static long counter;

// CHECK-LABEL: void bump(void) {
// CHECK: ((!((m) == ((void *)0)) && (threaded != 0)) ? rcl_delegate(&(m)->lock, rcl_cs_bump_{{[0-9]+}}, (void *)0) : rcl_cs_bump_{{[0-9]+}}((void *)0));
void bump(void) {
    xlock(m);
    counter++;
    xunlock(m);
}

// ERR: wrapper-early-return.c:[[@LINE+2]]:5: rcl: cannot convert critical section: lock wrapper 'cnt_lock' does more than lock its first argument, and it returns early (line {{[0-9]+}}) and does other things besides the lock
void counted(void) {
    cnt_lock(m);
    counter += 2;
    cnt_unlock(m);
}

int main(void) {
    bump(); /* no mutex yet: runs in place */
    m = calloc(1, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    for (int i = 0; i < 1000; i++)
        bump();
    counted();
    printf("counter %ld count %ld\n", counter, m->count);
    return 0;
}
// STATS: rcl: server 0 (cpu {{-?[0-9]+}}): 1000 sections served
