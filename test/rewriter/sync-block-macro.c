// Case 20: synchronized-block macros, the way xz's liblzma writes them (mythread_sync, 34 of
// its 35 sections; shared/cases/fixed/for_sync_macro.c): a for loop whose test takes the lock
// (in a comma expression) and releases it on the next test, with a second loop so that a break
// in the block still unlocks. The guarded block is the section: the macro's use and the block
// become the call site, the block's statements the outlined body; a break or continue that
// leaves the block the way its end does becomes `return 0;`. A break out of the one-loop form
// would leave holding the lock, and a return does in both: refused. Was refused as "the lock is
// taken inside an expression". Same output as the original in every RCL_MODE, two threads.
// RUN: %rcl-rewrite --all --lock-fn=my_lock --unlock-fn=my_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs
// RUN: env RCL_MODE=delegate %t.rcl > %t.delegate.out && diff %t.orig.out %t.delegate.out
// RUN: env RCL_MODE=adaptive %t.rcl > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out && diff %t.orig.out %t.local.out
#include <pthread.h>
#include <stdio.h>
static inline void my_lock(pthread_mutex_t *m) { pthread_mutex_lock(m); }
static inline void my_unlock(pthread_mutex_t *m) { pthread_mutex_unlock(m); }
#define my_sync(m) \
	for (unsigned i_ = 0; i_ ? (my_unlock(&(m)), 0) : (my_lock(&(m)), 1); i_ = 1) \
		for (unsigned j_ = 0; !j_; j_ = 1)
#define one_sync(m) \
	for (int k_ = 0; k_ ? (pthread_mutex_unlock(&(m)), 0) : (pthread_mutex_lock(&(m)), 1); k_++)

struct queue { pthread_mutex_t mutex; long n, skipped; };
static struct queue q = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long total;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_add_1(void *rcl_arg)
// CHECK: if (k % 7 == 0) {
// CHECK-NEXT: qp->skipped++;
// CHECK-NEXT: return 0;
// CHECK-NEXT: }
// CHECK: qp->n += k;
// CHECK-NEXT: return 0;
// CHECK: static void add(struct queue *qp, int k)
// CHECK-NEXT: {
// CHECK-NEXT: {
// CHECK-NEXT: struct rcl_cs_add_1_ctx rcl_ctx = { .k = k, .qp = qp };
// CHECK-NEXT: rcl_delegate_ctx(&(qp->mutex), rcl_cs_add_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT: }
static void add(struct queue *qp, int k)
{
    my_sync(qp->mutex) {
        if (k % 7 == 0) {
            qp->skipped++;
            break;
        }
        qp->n += k;
    }
}

// The one-loop form: continue ends the block, as its end does.
// CHECK: static RCL_SECTION_INLINE int rcl_cs_bump_1(void *rcl_arg)
// CHECK: if (k < 0)
// CHECK-NEXT: return 0;
static void bump(int k)
{
    one_sync(mu) {
        if (k < 0)
            continue;
        total += k;
    }
}

// Refused: a return inside the block leaves it holding the lock, and so does a break out of
// the one-loop form.
static int peek(void)
{
    my_sync(mu) {
        if (total > 1000000)
            return 1;
        total++;
    }
    return 0;
}
// ERR-DAG: sync-block-macro.c:[[@LINE-5]]:13: rcl: cannot convert critical section: returns while holding the lock

static void leak(int k)
{
    one_sync(mu) {
        if (k > 1000000)
            break;
        total--;
    }
}
// ERR-DAG: sync-block-macro.c:[[@LINE-4]]:13: rcl: cannot convert critical section: break leaves the critical section while holding the lock
// ERR: rcl: summary: 2 converted, 2 refused

static void *work(void *arg)
{
    (void)arg;
    for (int k = 0; k < 20000; k++) {
        add(&q, k);
        bump(k % 3 - 1);
        peek();
        leak(k);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("n=%ld skipped=%ld total=%ld\n", q.n, q.skipped, total);
    return 0;
}
