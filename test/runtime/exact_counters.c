// T threads x K locks x M delegated increments: every total is exact, with one server,
// several servers, clients that park at once, and RCL_MODE=local (same binary).
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_SERVERS=3 %t | FileCheck %s
// RUN: env RCL_SPIN_NS=0 RCL_SERVER_SPIN_NS=0 %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s --check-prefix=LOCAL
// RUN: env RCL_MODE=adaptive RCL_ADAPTIVE_FLIP=3 RCL_SERVERS=2 %t | FileCheck %s --check-prefix=ADAPTIVE
// RUN: env RCL_MODE=adaptive %t | FileCheck %s --check-prefix=ADAPTIVE
// CHECK: mode=delegate
// CHECK: counters exact: 8 locks x 4 threads x 20000
// LOCAL: mode=local
// LOCAL: counters exact: 8 locks x 4 threads x 20000
// ADAPTIVE: mode=adaptive
// ADAPTIVE: counters exact: 8 locks x 4 threads x 20000
#include "Inputs/harness.h"
#include <rcl/rcl.h>

#define T 4
#define K 8
#define M 20000

static pthread_mutex_t locks[K];
static long counters[K];  /* protected by locks[k] */
static long shadow[K][8]; /* more lines touched per CS, also protected */

struct inc { int k; long delta; };

static int increment(void *arg) {
    struct inc *in = arg;
    counters[in->k] += in->delta;
    for (int i = 0; i < 8; i++)
        shadow[in->k][i] += 1;
    return (int)(counters[in->k] & 0x7fffffff);
}

static void *worker(void *arg) {
    long id = (long)arg;
    for (int i = 0; i < M; i++) {
        struct inc in = {(int)((i + id) % K), 1};
        int r = rcl_delegate(&locks[in.k], increment, &in);
        CHECK(r > 0); /* the result travels back: the counter is positive after an increment */
    }
    return NULL;
}

int main(void) {
    for (int k = 0; k < K; k++)
        pthread_mutex_init(&locks[k], NULL);
    printf("mode=%s\n", rcl_mode() == RCL_MODE_LOCAL      ? "local"
                       : rcl_mode() == RCL_MODE_ADAPTIVE ? "adaptive"
                                                         : "delegate");
    run_threads(T, worker);
    long total = 0;
    for (int k = 0; k < K; k++) {
        total += counters[k];
        for (int i = 0; i < 8; i++)
            CHECK(shadow[k][i] == counters[k]);
    }
    CHECK(total == (long)T * M);
    for (int k = 0; k < K; k++)
        CHECK(counters[k] == (long)T * M / K);
    printf("counters exact: %d locks x %d threads x %d\n", K, T, M);
    return 0;
}
