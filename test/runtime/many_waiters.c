// More sections waiting on a condition than the servicing pool has threads (RCL_POOL_MAX):
// once every servicing thread is blocked, the server has no poller and the requests still
// posted are taken back by their callers and run locally under the mutex (mixed mode), so
// the producer's sections run and every waiter is woken. Before the fix: deadlock.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t 70 | FileCheck %s --check-prefix=DEFAULT
// RUN: env RCL_POOL_MAX=4 RCL_STATS=1 %t 12 2>%t.err | FileCheck %s --check-prefix=SMALL
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// RUN: env RCL_MODE=local %t 70 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: handled=70
// SMALL: handled=12
// STATS: run by their callers: {{[1-9][0-9]*}} (no servicing thread left
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <unistd.h>

static pthread_mutex_t qm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static int queued, handled, waiting;

static int take(void *arg) {
    (void)arg;
    waiting++;
    while (queued == 0)
        rcl_cond_wait(&nonempty, &qm);
    queued--;
    handled++;
    return 0;
}
static int submit(void *arg) {
    (void)arg;
    queued++;
    pthread_cond_signal(&nonempty);
    return 0;
}
static int count_waiting(void *arg) {
    (void)arg;
    return waiting;
}
static void *worker(void *x) {
    (void)x;
    rcl_delegate(&qm, take, NULL);
    return NULL;
}
int main(int argc, char **argv) {
    alarm(60);
    int nw = argc > 1 ? atoi(argv[1]) : 70;
    pthread_t t[256];
    CHECK(nw <= 256);
    for (int i = 0; i < nw; i++)
        CHECK(pthread_create(&t[i], NULL, worker, NULL) == 0);
    while (rcl_delegate(&qm, count_waiting, NULL) < nw) /* every worker reached its wait */
        usleep(1000);
    for (int i = 0; i < nw; i++)
        rcl_delegate(&qm, submit, NULL);
    for (int i = 0; i < nw; i++)
        pthread_join(t[i], NULL);
    printf("handled=%d\n", handled);
    return handled == nw ? 0 : 1;
}
