// Sections that let their lock go for a stretch and take it again, nested in their own
// statements (issue 30): a cache refreshed unlocked (fuse's open_auto_cache), a queue drained
// one job at a time (`lock; while (q) { take; unlock; run; lock; } unlock`), a batch whose loop
// drops the lock around each step and whose step's declarations are used after the relock.
// rcl-cc's copy (--resolve-copy) lets the caller run each stretch (UnlockWindow.h): the section
// leaves at the unlock through a goto, the caller runs the stretch and delegates again, and the
// section resumes at the relock; the variables whose declarations that resumption jumps over are
// declared before the lock. `rcl convert` (no --resolve-copy) refuses and says that the copy
// does it; a stretch that jumps out (a goto) is refused in both.
// The converted program prints what the original prints in every mode.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags 2>&1 >/dev/null | FileCheck %s --check-prefix=KEPT
// RUN: %rcl-rewrite --all --resolve-copy --line-directives %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s < %t.c
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc -I%S %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate RCL_STATS=1 %t.rcl > %t.delegate.out 2> %t.stats
// RUN: diff %t.orig.out %t.delegate.out
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#define THREADS 3
#define ROUNDS 2000
#define JOBS 3000

// A cache whose stale entries are fetched again with the lock released.
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int valid = 1;
static long value, failures;

static int fetch(int key, int *out)
{
    *out = key;
    return key % 3 == 0; // (an error)
}

static long lookup(int key)
{
    long r;
    pthread_mutex_lock(&m);
    long before = value; // (declared in the section's block, read after the section)
    if (valid) {
        if (key % 4 == 0) {
            int st;
            int err = -1;
            const long seen = value; // (declared before the lock without its const)
            pthread_mutex_unlock(&m);
            err = fetch(key, &st);
            pthread_mutex_lock(&m);
            if (!err)
                value += st;
            else
                failures += seen >= 0;
        }
    }
    r = value;
    pthread_mutex_unlock(&m);
    return r >= before ? r : -1;
}
// KEPT: unlock-window.c:[[# @LINE-11]]:13: rcl: cannot convert critical section: the lock is released and taken again inside the critical section; rcl-cc and `rcl build` run the stretches between the unlock and the lock taken again on the caller's side in their copy, the section leaving before each and resuming after it (`rcl convert` does not)
// The call site: the hoisted declarations, address-taken, and the label the caller goes back to.
// CHECK: long before; (void)&before; int st; (void)&st; int err; (void)&err; long seen; (void)&seen; { int rcl_stage_[[N:[0-9]+]] = 0; rcl_top_[[N]]:; {
// CHECK: rcl_delegate_ctx(&m, rcl_cs_lookup_1, &rcl_ctx, sizeof rcl_ctx) == 1) {
// CHECK: goto rcl_window_[[N]]_1;
// The stretch, on its own lines, then the line after the section's unlock.
// CHECK: if (0) { rcl_window_[[N]]_1: {
// CHECK-NEXT: #line [[# @LINE-20]] "{{.*}}unlock-window.c"
// CHECK: err = fetch(key, &st);
// CHECK: #line [[# @LINE-12]] "{{.*}}unlock-window.c"
// CHECK-NEXT: goto rcl_top_[[N]]; } }

// A queue drained one job at a time, each job run unlocked; the stretch forgets the job with
// a macro of another file that declares a variable of its own (Tor's FREE_AND_NULL).
#include "Inputs/unlock-window-forget.h"
struct job {
    struct job *next;
    void (*run)(struct job *);
    long result;
};
static pthread_mutex_t qm = PTHREAD_MUTEX_INITIALIZER;
static struct job jobs[JOBS], *head;
static long done;

static void square(struct job *j) { j->result = (long)(j - jobs) * (j - jobs); }

static void drain(void)
{
    pthread_mutex_lock(&qm);
    while (head != NULL) {
        struct job *j = head;
        head = j->next;
        pthread_mutex_unlock(&qm);
        j->run(j);
        forget_job(j);
        pthread_mutex_lock(&qm);
        done++;
    }
    pthread_mutex_unlock(&qm);
}
// KEPT: unlock-window.c:[[# @LINE-12]]:5: rcl: cannot convert critical section: the lock is released and taken again in each iteration of the loop at line [[# @LINE-11]] ({{.*}}); rcl-cc and `rcl build` run the stretches between the unlock and the lock taken again on the caller's side in their copy, the section leaving before each and resuming after it (`rcl convert` does not); left as is, safe in mixed mode
// The outlined section resumes inside its loop, after the relock.
// CHECK: static RCL_SECTION_INLINE int rcl_cs_drain_1(
// CHECK: if ((*rcl_ctx->rcl_stage_[[Q:[0-9]+]]) == 1) goto rcl_resume_[[Q]]_1;
// CHECK: (*rcl_ctx->j) = head;
// CHECK: (*rcl_ctx->rcl_stage_[[Q]]) = 1; return 1;
// CHECK: rcl_resume_[[Q]]_1: (*rcl_ctx->rcl_stage_[[Q]]) = 0;
// CHECK-NEXT: done++;

// Two stretches: one in a loop whose counter (declared by the `for`), a step's declaration
// and one declared in the stretch itself live across it; one that may return.
static pthread_mutex_t m3 = PTHREAD_MUTEX_INITIALIZER;
static long total3, steps3;

static int slow(int i) { return i * 2; }

static int batch(int n)
{
    pthread_mutex_lock(&m3);
    steps3++;
    for (int i = 0; i < n; i++) {
        long part = i;
        bool odd = i & 1; // (a declaration that starts with a macro's use, stdbool's `bool`)
        pthread_mutex_unlock(&m3);
        int twice = slow(i);
        pthread_mutex_lock(&m3);
        total3 += twice + part + odd;
    }
    if (n % 2) {
        pthread_mutex_unlock(&m3);
        if (n > 1000)
            return -1;
        pthread_mutex_lock(&m3);
        steps3++;
    }
    pthread_mutex_unlock(&m3);
    return 0;
}
// CHECK: int i; (void)&i; long part; (void)&part; bool odd; (void)&odd; int twice; (void)&twice; { int rcl_stage_[[B:[0-9]+]] = 0; rcl_top_[[B]]:; {
// CHECK: if (0) { rcl_window_[[B]]_1: {
// CHECK: twice = slow(i);
// CHECK: goto rcl_top_[[B]]; rcl_window_[[B]]_2: {
// CHECK: return -1;

// A stretch that leaves by a goto cannot run elsewhere: refused in both.
static pthread_mutex_t m4 = PTHREAD_MUTEX_INITIALIZER;
static long n4;

static int leaves(int k)
{
    pthread_mutex_lock(&m4);
    n4++;
    if (k) {
        pthread_mutex_unlock(&m4);
        if (k > 5)
            goto out;
        pthread_mutex_lock(&m4);
        n4++;
    }
    pthread_mutex_unlock(&m4);
    return 0;
out:
    return 1;
}
// KEPT: unlock-window.c:[[# @LINE-8]]:9: rcl: cannot convert critical section: the lock is released and taken again inside the critical section{{$}}
// (Its stretch from the relock on converts: the copy joins it into the `if`, BranchJoin.h;
// clean5's trylock below is refused too. A relock the copy made a resume point counts as a
// section of its own, with its section's outcome: 3 relocks of converted sections, and tidy's,
// refused with its section.)
// ERR: rcl: summary: 12 converted, 4 refused

// A variable with a cleanup, which runs at the end of its block with the lock held (the cleanup
// finds it so), stays there: refused in both, and its relock's stretch is not joined either (the
// join would run the cleanup after the unlock).
static pthread_mutex_t m5 = PTHREAD_MUTEX_INITIALIZER;
static long n5, cleaned5;

static void clean5(long *held)
{
    if (pthread_mutex_trylock(&m5) == 0) {
        pthread_mutex_unlock(&m5); // (not held: the original never gets here)
        return;
    }
    cleaned5 += *held > 0;
}

static void tidy(int k)
{
    pthread_mutex_lock(&m5);
    if (k & 1) {
        long held __attribute__((cleanup(clean5))) = k;
        pthread_mutex_unlock(&m5);
        held += slow(k);
        pthread_mutex_lock(&m5);
        n5 += held;
    }
    pthread_mutex_unlock(&m5);
}
// KEPT: unlock-window.c:[[# @LINE-5]]:9: rcl: cannot convert critical section: the lock is released and taken again inside the critical section{{$}}

// A pool worker written as libzstd's POOL_thread: its last statement a block that takes a job,
// lets the lock go to run it, takes it again and releases it at the block's end; shut down, it
// returns. The section then ends three ways: returning, leaving for the stretch, and at its end
// (whose exit, the jump to the stretch once read as the block's end, ran the job again).
#define POOL_JOBS 2000
static pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_ready = PTHREAD_COND_INITIALIZER;
static int pool_queue[POOL_JOBS], pool_head, pool_tail, pool_stop;
static long pool_sum, pool_done;

static void *pool_worker(void *arg)
{
    for (;;) {
        pthread_mutex_lock(&pm);
        while (pool_head == pool_tail && !pool_stop)
            pthread_cond_wait(&pool_ready, &pm);
        if (pool_head == pool_tail) {
            pthread_mutex_unlock(&pm);
            return arg;
        }
        {
            int job = pool_queue[pool_head++];
            pthread_mutex_unlock(&pm);
            __atomic_add_fetch(&pool_sum, job, __ATOMIC_RELAXED);
            pthread_mutex_lock(&pm);
            pool_done++;
            pthread_mutex_unlock(&pm);
        }
    }
}
// CHECK: int rcl_exit = rcl_delegate_ctx(&pm, rcl_cs_pool_worker_1, &rcl_ctx, sizeof rcl_ctx); if (rcl_exit == 1) {
// CHECK: return arg;
// CHECK: } else if (rcl_exit == 2) {
// CHECK: goto rcl_window_{{[0-9]+}}_1;

static void *worker(void *arg)
{
    int t = (int)(long)arg, k;
    for (k = 0; k < ROUNDS; k++) {
        lookup(k * THREADS + t);
        batch(k % 5);
        leaves(k % 8);
        tidy(k);
    }
    drain();
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    long sum = 0;
    int i;
    for (i = 0; i < JOBS; i++) {
        jobs[i].run = square;
        jobs[i].next = i + 1 < JOBS ? &jobs[i + 1] : NULL;
    }
    head = &jobs[0];
    pthread_t pool[2];
    for (i = 0; i < 2; i++)
        pthread_create(&pool[i], NULL, pool_worker, NULL);
    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)i);
    for (i = 0; i < POOL_JOBS; i++) {
        pthread_mutex_lock(&pm);
        pool_queue[pool_tail++] = i;
        pthread_cond_signal(&pool_ready);
        pthread_mutex_unlock(&pm);
    }
    pthread_mutex_lock(&pm);
    pool_stop = 1;
    pthread_cond_broadcast(&pool_ready);
    pthread_mutex_unlock(&pm);
    for (i = 0; i < 2; i++)
        pthread_join(pool[i], NULL);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (i = 0; i < JOBS; i++)
        sum += jobs[i].result;
    printf("value %ld failures %ld; done %ld sum %ld; total3 %ld steps3 %ld; n4 %ld; n5 %ld "
           "cleaned5 %ld; pool %ld of %ld\n", value, failures, done, sum, total3, steps3, n4, n5,
           cleaned5, pool_sum, pool_done);
    return 0;
}
// Every stretch is a delegation of its own: lookup 6,000 + 1,500 (its keys divisible by 4),
// drain 3 + 3,000, batch 6,000 + 12,000 (its loops' steps) + 2,400 (odd n), and leaves' joined
// relock stretch 3,750 (k % 8 from 1 to 5), the pool's 2,000 jobs twice and its workers' last
// sections, 2 (each job's waits for it are inside one), and main's 2,001: 40,656 in all.
// STATS: rcl: mode delegate
// STATS: rcl: server 0 (cpu {{[0-9]+}}): 40656 sections served
