// A worker loop written as libuv's thread pool writes it: the lock before the loop, each
// iteration waits for an item, takes it (a `continue` with the lock held starts over), unlocks,
// works, and locks again for the next iteration, whose first statements (S2) finish the last
// item's bookkeeping; the exit unlocks and breaks. No block holds one lock-to-unlock stretch.
// rcl-cc's copy (--resolve-copy) rotates the loop (LoopRotation.h): the lock at the top of each
// iteration, S2 under a flag, continues to a label, and the section converts; every line keeps
// its number. `rcl convert` (no --resolve-copy) refuses it and says that the copy rotates it.
// The converted program prints what the original prints in every mode.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags 2>&1 >/dev/null | FileCheck %s --check-prefix=KEPT
// RUN: %rcl-rewrite --all --resolve-copy --line-directives %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s < %t.c
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>

#define ITEMS 3000
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static int queue[ITEMS], head, tail, stop, slow_running, max_slow;
static long sum, taken, skipped, noted;
// A macro whose block declares a variable of its own (memcached's LOGGER_LOG in its storage
// compactor's S2): the variable is S2's, which still moves.
#define NOTE(v)                                                                                    \
    do {                                                                                           \
        long note_ = (v);                                                                          \
        noted += note_ > 0;                                                                        \
    } while (0)

static long work(int item) { return (long)item * 3 + 1; }

static void *worker(void *arg)
{
    int slow;
    long got;
    (void)arg;
    pthread_mutex_lock(&m);
    for (;;) {
        while (head == tail && !stop)
            pthread_cond_wait(&ready, &m);
        if (head == tail) {
            pthread_cond_signal(&ready);
            pthread_mutex_unlock(&m);
            break;
        }
        int item = queue[head++];
        if (item % 7 == 0) {
            skipped++;
            continue;
        }
        slow = item % 5 == 0;
        slow_running += slow;
        if (slow_running > max_slow)
            max_slow = slow_running;
        taken++;
        pthread_mutex_unlock(&m);

        got = work(item);

        pthread_mutex_lock(&m);
        sum += got;
        NOTE(got);
        if (slow)
            slow_running--;
    }
    return NULL;
}

// The classic pool worker: its exit breaks with the lock held, and the unlock after the loop
// releases it. The break becomes a goto to a label on that unlock, an exit of the section.
static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready2 = PTHREAD_COND_INITIALIZER;
static int queue2[ITEMS], count2, stop2;
static long sum2;

static void *classic(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m2);
    for (;;) {
        while (count2 == 0 && !stop2)
            pthread_cond_wait(&ready2, &m2);
        if (count2 == 0)
            break;
        int item = queue2[--count2];
        sum2 += item;
        pthread_mutex_unlock(&m2);
        work(item);
        pthread_mutex_lock(&m2);
    }
    pthread_mutex_unlock(&m2);
    return NULL;
}

// KEPT: worker-loop-rotated.c:[[# @LINE-58]]:5: rcl: cannot convert critical section: the lock is released and taken again in each iteration of the loop at line [[# @LINE-57]] (a worker loop: lock; loop { ...; unlock; work; lock; } unlock): its sections are the stretches from each lock to the next unlock, which only rotating the loop makes blocks of their own (lock at the top of each iteration, unlock before its work); rcl-cc and `rcl build` rotate it in their copy (`rcl convert` does not); left as is, safe in mixed mode
// ERR: rcl: summary: 6 converted, 0 refused
// The outlined section: S2 under the flag (on its own lines), the flag set, the label, S1 with
// its continue made a goto.
// CHECK: if ((*rcl_ctx->rcl_again_[[N:[0-9]+]])) {
// CHECK-NEXT: #line [[# @LINE-40]] "{{.*}}worker-loop-rotated.c"
// CHECK: sum += (*rcl_ctx->got);
// CHECK: #line [[# @LINE-64]] "{{.*}}worker-loop-rotated.c"
// CHECK-NEXT: (*rcl_ctx->rcl_again_[[N]]) = 1; rcl_top_[[N]]:;
// CHECK: goto rcl_top_[[N]];
// The call site: a block for the flag, whose variables read by S2 are address-taken (the
// context holds their address: their value before the first iteration is indeterminate).
// CHECK: { int rcl_again_[[N]] = 0; (void)&got; (void)&slow;
// CHECK-NEXT: for (;;) { {{.*}}rcl_delegate_ctx(&m, rcl_cs_worker_1
// The classic worker's exit:
// CHECK: rcl_delegate_ctx(&m2, rcl_cs_classic_1, {{.*}} == 1) { goto rcl_rcl_break_[[B:[0-9]+]]_unlocked; } }
// CHECK: rcl_break_[[B]]: __attribute__((unused)) pthread_mutex_unlock(&m2); rcl_rcl_break_[[B]]_unlocked:;

int main(void)
{
    pthread_t t[3], c[2];
    int i;
    for (i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (i = 0; i < 2; i++)
        pthread_create(&c[i], NULL, classic, NULL);
    for (i = 0; i < ITEMS; i++) {
        pthread_mutex_lock(&m);
        queue[tail++] = i;
        pthread_cond_signal(&ready);
        pthread_mutex_unlock(&m);
        pthread_mutex_lock(&m2);
        queue2[count2++] = i;
        pthread_cond_signal(&ready2);
        pthread_mutex_unlock(&m2);
    }
    pthread_mutex_lock(&m);
    stop = 1;
    pthread_cond_broadcast(&ready);
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m2);
    stop2 = 1;
    pthread_cond_broadcast(&ready2);
    pthread_mutex_unlock(&m2);
    for (i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    for (i = 0; i < 2; i++)
        pthread_join(c[i], NULL);
    printf("sum %ld taken %ld skipped %ld slow %d noted %ld; sum2 %ld\n", sum, taken, skipped,
           slow_running, noted, sum2);
    return 0;
}
// STATS: rcl: mode delegate
// The rotated sections run on the server: main's 6,002 sections and the workers' 5,576 (pool A:
// 3,000 items less the 429 skipped ones, which go on inside their section, and 3 exits; pool B:
// 3,000 items and 2 exits).
// STATS: rcl: server 0 (cpu {{[0-9]+}}): 11578 sections served
