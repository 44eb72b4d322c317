// Optional locks: a lock taken only when the object has one, or when the program runs
// threaded, and released under the same condition (APR's `file_lock(f)`, `if (m)
// apr_thread_mutex_lock(m)` in its pools, alsa-lib's `snd_pcm_lock(pcm)` wrapper that locks only
// when `pcm->lock_enabled && pcm->need_lock`). The section converts: it is delegated when the
// condition holds and runs in place, without any lock, when it does not, as the original did.
// The condition is tested once; a section that may change what it reads, or releases the lock
// without the condition, is refused.
// RUN: %rcl-rewrite --all --lock-fn=snd_pcm_lock --unlock-fn=snd_pcm_unlock %s -- %rcl_cflags > %t.c 2> %t.err
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

struct file { pthread_mutex_t *thlock; long pos, reads; };
#define file_lock(f)                                                                        \
    do {                                                                                    \
        if ((f)->thlock) pthread_mutex_lock((f)->thlock);                                   \
    } while (0)
#define file_unlock(f)                                                                      \
    do {                                                                                    \
        if ((f)->thlock) pthread_mutex_unlock((f)->thlock);                                 \
    } while (0)

static pthread_mutex_t file_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct file shared = { &file_mutex, 0, 0 };
static struct file single = { NULL, 0, 0 }; // used by one thread only: no lock

// CHECK-LABEL: static long file_read(struct file *f, long n)
// CHECK: (((f)->thlock) ? rcl_delegate_ctx((f)->thlock, rcl_cs_file_read_1, &rcl_ctx, sizeof rcl_ctx) : rcl_cs_file_read_1(&rcl_ctx))
static long file_read(struct file *f, long n)
{
    long at;
    file_lock(f);
    if (n < 0) {
        file_unlock(f);
        return -1;
    }
    at = f->pos;
    f->pos += n;
    f->reads++;
    file_unlock(f);
    return at;
}

struct allocator { pthread_mutex_t *mutex; long blocks; };
static pthread_mutex_t alloc_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct allocator pool = { &alloc_mutex, 0 };

// CHECK-LABEL: static void allocator_free(struct allocator *a, long n)
// CHECK: ((a->mutex) ? rcl_delegate_ctx(a->mutex, rcl_cs_allocator_free_1,
static void allocator_free(struct allocator *a, long n)
{
    if (a->mutex)
        pthread_mutex_lock(a->mutex);
    a->blocks += n;
    if (a->mutex)
        pthread_mutex_unlock(a->mutex);
}

typedef struct { pthread_mutex_t lock; int lock_enabled, need_lock; long appl; } snd_pcm_t;
static inline void snd_pcm_lock(snd_pcm_t *pcm)
{
    if (pcm->lock_enabled && pcm->need_lock)
        pthread_mutex_lock(&pcm->lock);
}
static inline void snd_pcm_unlock(snd_pcm_t *pcm)
{
    if (pcm->lock_enabled && pcm->need_lock)
        pthread_mutex_unlock(&pcm->lock);
}
static snd_pcm_t pcm = { PTHREAD_MUTEX_INITIALIZER, 1, 1, 0 };

// CHECK-LABEL: static void pcm_forward(snd_pcm_t *p, long frames)
// CHECK: (((p)->lock_enabled && (p)->need_lock) ? rcl_delegate_ctx(&(p)->lock, rcl_cs_pcm_forward_1,
static void pcm_forward(snd_pcm_t *p, long frames)
{
    snd_pcm_lock(p);
    p->appl += frames;
    snd_pcm_unlock(p);
}

// Checked operations under the condition (libmicrohttpd's `if (NULL != response->crc)
// MHD_mutex_lock_chk_(&response->mutex);`), an exit among them.
#define MUTEX_LOCK_CHK(m) do { if (!(!(pthread_mutex_lock(m)))) abort(); } while (0)
#define MUTEX_UNLOCK_CHK(m) do { if (!(!(pthread_mutex_unlock(m)))) abort(); } while (0)
struct response { void *crc; pthread_mutex_t mutex; long total; };
static struct response resp = { &resp, PTHREAD_MUTEX_INITIALIZER, 0 };

// CHECK-LABEL: static int response_add(struct response *r, long n)
// CHECK: ((NULL != r->crc) ? rcl_delegate_ctx(&r->mutex, rcl_cs_response_add_1,
static int response_add(struct response *r, long n)
{
    if (NULL != r->crc)
        MUTEX_LOCK_CHK(&r->mutex);
    if (n == 0) {
        if (NULL != r->crc)
            MUTEX_UNLOCK_CHK(&r->mutex);
        return 0;
    }
    r->total += n;
    if (NULL != r->crc)
        MUTEX_UNLOCK_CHK(&r->mutex);
    return 1;
}

// Refused: the section may change the condition, so the unlock could disagree with the lock.
static void detach(struct file *f)
{
    file_lock(f);
    // ERR-DAG: optional-lock.c:[[@LINE-1]]:5: rcl: cannot convert critical section: the lock's condition depends on 'thlock', which the critical section may modify
    f->thlock = f->thlock;
    file_unlock(f);
}

// Refused: taken under the condition, released without it.
static void mismatched(struct allocator *a)
{
    if (a->mutex)
        pthread_mutex_lock(a->mutex);
    a->blocks++;
    pthread_mutex_unlock(a->mutex);
    // ERR-DAG: optional-lock.c:[[@LINE-1]]:5: rcl: cannot convert critical section: the lock is taken only under a condition (line {{[0-9]+}}) and released at line [[@LINE-1]] without that condition
}
// ERR-DAG: rcl: summary: 4 converted, 2 refused
// STATS: rcl: server {{[0-9]+}} {{.*}}: {{[1-9][0-9]*}} sections served

static void *worker(void *arg)
{
    long n = (long)arg;
    for (int i = 0; i < 5000; i++) {
        file_read(&shared, n);
        allocator_free(&pool, n);
        pcm_forward(&pcm, n);
        response_add(&resp, i % 3);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 3; i++) file_read(&single, 10);
    if (file_read(&single, -1) != -1) return 1;
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    detach(&single);
    mismatched(&pool);
    pcm.need_lock = 0;
    pcm_forward(&pcm, 7);
    printf("shared=%ld/%ld single=%ld/%ld blocks=%ld appl=%ld total=%ld\n", shared.pos,
           shared.reads, single.pos, single.reads, pool.blocks, pcm.appl, resp.total);
    return 0;
}
