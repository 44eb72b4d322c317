// The benchmark baselines (bench/baselines.c) are correct locks: with threads hammering one
// plain counter, mutexee (spin-then-park, and park-at-once), CC-Synch (a small combining
// bound, so the combiner role changes hands often) and ffwd (17 clients: two response-line
// groups) lose no update, and every caller gets its own critical section's result back.
// RUN: %cc %rcl_internal -I%rcl_src/bench %s %rcl_src/bench/baselines.c -o %t %rcl_libs
// RUN: %t | FileCheck %s
// CHECK: mutexee spin 2000: 60000 of 60000, answers ok
// CHECK: mutexee spin 0: 60000 of 60000, answers ok
// CHECK: ccsynch H=2: 60000 of 60000, answers ok
// CHECK: ffwd 17 clients: 8500 of 8500, answers ok
#include "baselines.h"

#include <stdio.h>
#include <stdlib.h>

static long counter;
static struct bl_mutexee mutexee;
static struct bl_ccsynch ccsynch;
static struct bl_ffwd ffwd;
static _Atomic int bad;

struct ctx {
    int id, iters;
    long last; /* the counter value this thread's previous section saw */
};

/* Returns the caller's id; checks that the counter only grows as this caller sees it. */
static int cs(void *arg) {
    struct ctx *c = arg;
    if (counter < c->last) bad = 1;
    c->last = ++counter;
    return c->id;
}

static void *mutexee_thread(void *arg) {
    struct ctx *c = arg;
    for (int i = 0; i < c->iters; i++) {
        bl_mutexee_lock(&mutexee);
        if (cs(c) != c->id) bad = 1;
        bl_mutexee_unlock(&mutexee);
    }
    return NULL;
}

static void *ccsynch_thread(void *arg) {
    struct ctx *c = arg;
    struct bl_ccsynch_thread t;
    if (bl_ccsynch_thread_init(&t)) abort();
    for (int i = 0; i < c->iters; i++)
        if (bl_ccsynch_apply(&ccsynch, &t, cs, c) != c->id) bad = 1;
    bl_ccsynch_thread_fini(&t);
    return NULL;
}

static void *ffwd_thread(void *arg) {
    struct ctx *c = arg;
    int slot = bl_ffwd_client_open(&ffwd);
    if (slot < 0) abort();
    for (int i = 0; i < c->iters; i++)
        if (bl_ffwd_call(&ffwd, slot, cs, c) != c->id) bad = 1;
    return NULL;
}

static void run(const char *name, void *(*fn)(void *), int threads, int iters) {
    pthread_t t[32];
    struct ctx c[32];
    counter = 0;
    bad = 0;
    for (int i = 0; i < threads; i++) {
        c[i] = (struct ctx){i + 1, iters, 0};
        pthread_create(&t[i], NULL, fn, &c[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    printf("%s: %ld of %d, answers %s\n", name, counter, threads * iters, bad ? "WRONG" : "ok");
}

int main(void) {
    bl_mutexee_init(&mutexee, 2000, 600);
    run("mutexee spin 2000", mutexee_thread, 4, 15000);
    bl_mutexee_init(&mutexee, 0, 0);
    run("mutexee spin 0", mutexee_thread, 4, 15000);
    if (bl_ccsynch_init(&ccsynch, 2)) abort();
    run("ccsynch H=2", ccsynch_thread, 4, 15000);
    bl_ccsynch_destroy(&ccsynch);
    if (bl_ffwd_start(&ffwd, 17, -1)) abort();
    run("ffwd 17 clients", ffwd_thread, 17, 500);
    bl_ffwd_stop(&ffwd);
    return 0;
}
