// rcl_delegate_ctx: a context of at most 32 bytes travels inside the request line (the server
// runs the section on a copy, and what the section wrote comes back before the call returns);
// one byte more, and it goes by pointer, as with rcl_delegate. Checked here:
//   - exactly at the limit (32 bytes, a 16-byte-aligned member): a copy, aligned, every byte in
//     and out; 33 bytes: the caller's own context; rcl_delegate: the caller's own context;
//   - a request handed back (the caller holds its recursive mutex): the caller runs the section
//     on its own context;
//   - a section that waits on a condition (rcl_cond_wait hands its servicing thread over) with
//     its context in the request: the context stays whole across the wait;
//   - 4 threads, each call's context carrying the thread and a sequence number, with exact
//     counters: no request runs on another request's context;
//   - local mode: the caller's own context, as a plain lock would.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s --check-prefix=LOCAL
// CHECK: 32 bytes: copied; 33 bytes: by pointer; rcl_delegate: by pointer; handed back: caller's
// CHECK: condition wait: context whole
// CHECK: 4 threads: 80000 calls, each on its own context
// LOCAL: 32 bytes: caller's; 33 bytes: by pointer; rcl_delegate: by pointer; handed back: caller's
// LOCAL: condition wait: context whole
// LOCAL: 4 threads: 80000 calls, each on its own context
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

struct at_limit { /* 32 bytes, 16-byte aligned */
    __int128 wide;
    uint64_t a;
    void *caller; /* the caller's &ctx */
};
_Static_assert(sizeof(struct at_limit) == RCL_CTX_INLINE_MAX, "exactly the inline limit");
struct over_limit {
    unsigned char bytes[32];
    unsigned char one_more;
};
_Static_assert(sizeof(struct over_limit) == RCL_CTX_INLINE_MAX + 1, "one byte over the limit");

/* How the section saw its context: 0 the caller's own, 1 a copy, -1 a copy that lost data. */
static int at_limit_cs(void *arg) {
    struct at_limit *c = arg;
    if ((uintptr_t)c % 16 || c->wide != ((__int128)7 << 64 | 9) || c->a != 0x1122334455667788u)
        return -1;
    c->wide += 1; /* written on the server: must come back */
    c->a = 42;
    return arg != c->caller;
}
static int over_limit_cs(void *arg) {
    struct over_limit *c = arg;
    for (int i = 0; i < 32; i++)
        if (c->bytes[i] != i) return -1;
    c->one_more = 99;
    return 0;
}
static int where_cs(void *arg) {
    *(int *)arg += 1;
    return 0;
}

static const char *seen(int r) {
    return r == 1 ? "copied" : r == 0 ? "caller's" : "LOST";
}

/* the condition wait */
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int open_gate;
struct waiter {
    int *gate;
    uint64_t in, out;
    uint64_t pad[2];
};
static int wait_cs(void *arg) {
    struct waiter *w = arg;
    while (!*w->gate)
        rcl_cond_wait(&cv, &m);
    w->out = w->in * 3;
    return 0;
}
static int open_cs(void *arg) {
    (void)arg;
    open_gate = 1;
    pthread_cond_broadcast(&cv);
    return 0;
}
static void *opener(void *arg) {
    (void)arg;
    usleep(20 * 1000);
    rcl_delegate(&m, open_cs, NULL);
    return NULL;
}

/* many threads */
#define THREADS 4
#define CALLS   20000
static long total, per_thread[THREADS];
struct tagged {
    long thread, seq;
    long pad[2]; /* 32 bytes: in the request */
};
static int tagged_cs(void *arg) {
    struct tagged *t = arg;
    total++;
    if (per_thread[t->thread] != t->seq) return -1;
    per_thread[t->thread]++;
    t->seq = -1; /* comes back to the caller */
    return 0;
}
static int bad_calls;
static void *caller(void *arg) {
    long id = (long)arg;
    for (long i = 0; i < CALLS; i++) {
        struct tagged t = {id, i, {0, 0}};
        if (rcl_delegate_ctx(&m, tagged_cs, &t, sizeof t) != 0 || t.seq != -1)
            __atomic_add_fetch(&bad_calls, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

int main(void) {
    struct at_limit a = {(__int128)7 << 64 | 9, 0x1122334455667788u, NULL};
    a.caller = &a;
    int r32 = rcl_delegate_ctx(&m, at_limit_cs, &a, sizeof a);
    CHECK(r32 >= 0);
    CHECK(a.wide == ((__int128)7 << 64 | 10) && a.a == 42);

    struct over_limit o;
    for (int i = 0; i < 32; i++)
        o.bytes[i] = (unsigned char)i;
    o.one_more = 0;
    CHECK(rcl_delegate_ctx(&m, over_limit_cs, &o, sizeof o) == 0);
    CHECK(o.one_more == 99); /* by pointer: written in place */
    int n = 0;
    CHECK(rcl_delegate(&m, where_cs, &n) == 0 && n == 1);

    /* handed back: the caller holds its recursive mutex */
    pthread_mutexattr_t attr;
    pthread_mutex_t rec;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rec, &attr);
    struct at_limit b = {(__int128)7 << 64 | 9, 0x1122334455667788u, NULL};
    b.caller = &b;
    pthread_mutex_lock(&rec);
    int rback = rcl_delegate_ctx(&rec, at_limit_cs, &b, sizeof b);
    pthread_mutex_unlock(&rec);
    CHECK(rback == 0 && b.a == 42);
    printf("32 bytes: %s; 33 bytes: by pointer; rcl_delegate: by pointer; handed back: %s\n",
           seen(r32), seen(rback));

    pthread_t t;
    CHECK(pthread_create(&t, NULL, opener, NULL) == 0);
    struct waiter w = {&open_gate, 14, 0, {0, 0}};
    CHECK(rcl_delegate_ctx(&m, wait_cs, &w, sizeof w) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(w.out == 42 && w.in == 14);
    printf("condition wait: context whole\n");

    run_threads(THREADS, caller);
    CHECK(bad_calls == 0 && total == THREADS * CALLS);
    for (int i = 0; i < THREADS; i++)
        CHECK(per_thread[i] == CALLS);
    printf("%d threads: %ld calls, each on its own context\n", THREADS, total);
    return 0;
}
