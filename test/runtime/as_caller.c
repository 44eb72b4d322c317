// Sections that use their caller's thread state (RCL_AS_CALLER, caller.c): a thread-local
// counter, pthread_self, thread-specific data and errno are the caller's inside the section,
// on the server as in the caller; a nested converted section inside one runs in place; the
// server's own state is intact afterwards (plain delegated sections follow). Run as their
// caller on a server in delegate mode (RCL_STATS counts them); in their caller with
// RCL_AS_CALLER=0, and in local mode. A server that ran them with its own thread pointer fails
// every check of `bad`.
// UNSUPPORTED: sanitizer
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t 2>&1 | FileCheck %s --check-prefixes=CHECK,SERVER
// RUN: env RCL_MODE=delegate RCL_AS_CALLER=0 RCL_STATS=1 %t 2>&1 | FileCheck %s --check-prefixes=CHECK,HERE
// RUN: env RCL_MODE=adaptive %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s
// CHECK: total 8000 inner 8000 plain 8000 bad 0
// SERVER: on a server 8000
// HERE: on a server 0
// SERVER: sections that use their caller's thread state: 8000 run as their caller, 0 in their caller
// HERE: sections that use their caller's thread state: 0 run as their caller, 8000 in their caller
#include <errno.h>
#include <pthread.h>
#include <rcl/rcl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define THREADS 4
#define N       2000

static __thread long tls_count;
static __thread int tls_id;
static pthread_key_t key;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, inner = PTHREAD_MUTEX_INITIALIZER;
static long shared, inner_count, plain_count;
static _Atomic long bad, on_server;

struct ctx {
    pthread_t self;
    int id;
};

static int inner_cs(void *arg) {
    (void)arg;
    inner_count++;
    return 0;
}

static int plain_cs(void *arg) {
    (void)arg;
    plain_count++;
    return 0;
}

static int cs(void *arg) {
    struct ctx *c = arg;
    tls_count++;
    shared++;
    if (!pthread_equal(pthread_self(), c->self)) bad++;
    if (tls_id != c->id) bad++;
    if ((intptr_t)pthread_getspecific(key) != c->id) bad++;
    if (errno != 1000 + c->id) bad++;
    if (rcl_on_server()) on_server++;
    rcl_delegate(&inner, inner_cs, NULL); /* nested: in place, on this thread */
    errno = 2000 + c->id;
    return c->id;
}

static void *worker(void *arg) {
    int id = (int)(intptr_t)arg;
    tls_id = id;
    pthread_setspecific(key, (void *)(intptr_t)id);
    struct ctx c = {pthread_self(), id};
    for (int i = 0; i < N; i++) {
        errno = 1000 + id;
        /* by pointer, and by copy in the request line */
        int r = rcl_delegate_flags(&m, cs, &c, i % 2 ? sizeof c : 0, RCL_AS_CALLER);
        if (r != id || errno != 2000 + id) bad++;
    }
    if (tls_count != N) bad++;
    for (int i = 0; i < N; i++)
        rcl_delegate(&m, plain_cs, NULL);
    return NULL;
}

int main(void) {
    pthread_key_create(&key, NULL);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("total %ld inner %ld plain %ld bad %ld\n", shared, inner_count, plain_count, (long)bad);
    if (rcl_mode() == RCL_MODE_DELEGATE) printf("on a server %ld\n", (long)on_server);
    fflush(stdout);
    return 0;
}
