// The end of a reference-counted object's life right after a delegated critical section:
// unlock (the section returns), pthread_mutex_destroy, scribble, free. Once rcl_delegate has
// returned the server must not touch the mutex (it releases it before the answer), so destroy
// never sees EBUSY and ASan sees no use after free. Fails with the old order (answer, then
// unlock): destroy fails thousands of times.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s
// CHECK: destroy failed 0 times, v=60000
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <stdatomic.h>
#include <string.h>

struct obj {
    pthread_mutex_t m;
    long v;
};
static atomic_long busy, total;

static int bump(void *arg) {
    struct obj *o = arg;
    return (int)++o->v;
}

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        struct obj *o = malloc(sizeof *o);
        CHECK(o != NULL);
        pthread_mutex_init(&o->m, NULL);
        o->v = 0;
        rcl_delegate(&o->m, bump, o);
        atomic_fetch_add(&total, o->v);
        if (pthread_mutex_destroy(&o->m)) atomic_fetch_add(&busy, 1);
        memset(o, 0xab, sizeof *o); /* what a reuse of the memory would do */
        free(o);
    }
    return NULL;
}

int main(void) {
    run_threads(3, worker);
    printf("destroy failed %ld times, v=%ld\n", atomic_load(&busy), atomic_load(&total));
    return 0;
}
