// A section whose gotos, with the lock held, reach a label after an unlock that returns
// (issue 30): PulseAudio's pa_ratelimit_test (`if (fresh) goto good; ...; unlock; return
// false; good: ...; unlock; return true;`), fuse's iconv_convpath (`if (bad) goto err; ...;
// unlock; ...; return 0; err: ...; unlock; ...; return err;`). The section's first end is that
// unlock, and its gotos leave it holding the lock. rcl-cc's copy (--resolve-copy) writes the
// unlock and what follows it up to the return `if (1) { ... }`: an exit of the section, which
// then ends at the label's unlock. `rcl convert` (no --resolve-copy) refuses and says that the
// copy does it; a label reached from before the lock stays refused in both.
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
#include <stdlib.h>
#include <string.h>

#define THREADS 3
#define ROUNDS 3000

struct ratelimit {
    long interval, burst, begin, printed, missed;
};
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static int ratelimit_test(struct ratelimit *r, long now)
{
    pthread_mutex_lock(&m);
    if (r->begin <= 0 || r->begin + r->interval < now) {
        r->begin = now;
        r->printed = 0;
        goto good;
    }
    if (r->printed <= r->burst)
        goto good;
    r->missed++;
    pthread_mutex_unlock(&m);
    return 0;

good:
    r->printed++;
    pthread_mutex_unlock(&m);
    return 1;
}
// KEPT: early-exit-before-label.c:[[# @LINE-13]]:9: rcl: cannot convert critical section: goto 'good' leaves the critical section while holding the lock, for a label after the unlock at line [[# @LINE-8]] and its return; rcl-cc and `rcl build` make that unlock and what follows it an exit of the section in their copy, which then ends at the label's unlock (`rcl convert` does not)
// The outlined section keeps the label; the call site returns what the exit returned.
// CHECK: static RCL_SECTION_INLINE int rcl_cs_ratelimit_test_1(
// CHECK: goto good;
// CHECK: if (1) { return 1;
// CHECK: good:
// CHECK: rcl_delegate_ctx(&m, rcl_cs_ratelimit_test_1, &rcl_ctx, sizeof rcl_ctx) == 1) {
// CHECK-NEXT: #line [[# @LINE-15]] "{{.*}}early-exit-before-label.c"
// CHECK: return 0;

// The error path's label is reached from a loop, and frees what the section allocated.
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static long converted, failed;

static int convert(int in, char **out)
{
    char *buf = malloc(16);
    int err = 0, i;
    if (!buf)
        return -1;
    pthread_mutex_lock(&cm);
    for (i = 0; i < 3; i++) {
        err = -(in % 7 == i + 1);
        if (err)
            goto err;
    }
    converted++;
    pthread_mutex_unlock(&cm);
    snprintf(buf, 16, "%d", in % 100);
    *out = buf;
    return 0;

err:
    failed++;
    pthread_mutex_unlock(&cm);
    free(buf);
    return err;
}
// KEPT: early-exit-before-label.c:[[# @LINE-14]]:13: rcl: cannot convert critical section: goto 'err' leaves the critical section while holding the lock, for a label after the unlock at line [[# @LINE-11]] and its return; {{.*}}

// Not here: the label is also reached from before the lock.
static pthread_mutex_t om = PTHREAD_MUTEX_INITIALIZER;
static long other;

static int outside(int k)
{
    if (k < 0)
        goto out;
    pthread_mutex_lock(&om);
    if (k % 3 == 0)
        goto out;
    other++;
    pthread_mutex_unlock(&om);
    return 0;
out:
    if (k >= 0)
        pthread_mutex_unlock(&om);
    return 1;
}
// KEPT: early-exit-before-label.c:[[# @LINE-9]]:9: rcl: cannot convert critical section: goto 'out' leaves the critical section while holding the lock{{$}}
// ERR: rcl: summary: 2 converted, 1 refused

static struct ratelimit limit = {50, 3, 0, 0, 0};
static long passed, lengths;

static void *worker(void *arg)
{
    int t = (int)(long)arg, k;
    for (k = 0; k < ROUNDS; k++) {
        char *s = NULL;
        if (ratelimit_test(&limit, k))
            __atomic_add_fetch(&passed, 1, __ATOMIC_RELAXED);
        if (convert(k * THREADS + t, &s) == 0) {
            __atomic_add_fetch(&lengths, (long)strlen(s), __ATOMIC_RELAXED);
            free(s);
        }
        outside(k);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    int i;
    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)i);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("passed+missed %ld; converted %ld failed %ld lengths %ld; other %ld\n",
           passed + limit.missed, converted, failed, lengths, other);
    return 0;
}
// STATS: rcl: mode delegate
// ratelimit_test's and convert's 9,000 calls each.
// STATS: rcl: server 0 (cpu {{[0-9]+}}): 18000 sections served
