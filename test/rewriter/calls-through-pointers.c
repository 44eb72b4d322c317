// What a section runs through its callees and through function pointers (issue 31). The file
// is the whole program, which --facts-complete says: a call through a pointer may reach the
// address-taken functions of its type, here op_of's two (harmless: apply_op converts) and lop's
// (whoami, which reads its thread's scheduling parameters: unsafe_target is refused, naming the pointer and the
// target). A comparator given to qsort runs inside qsort: it is judged as a callee (by_value
// converts, and counting's thread-local counter converts it as one the server runs as its caller). A pointer of a type no function of the
// program has (plugin_fn) reaches a function outside the program: not judged, with a note. A callee that releases the section's
// lock and takes it again (work_unlocked, a monitor's task) refuses the section: converted, its
// work ran on the server with the lock released under the runtime. Without --facts-complete
// (one file of a larger program, as rcl-cc alone sees it) the pointer's targets are not known
// and apply_op waits for facts.
// RUN: %rcl-rewrite --all --facts-complete %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %rcl-rewrite --all --dry-run --report-json=%t.json %s -- %rcl_cflags 2> %t.blind
// RUN: FileCheck %s --check-prefix=BLIND < %t.blind
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: env RCL_MODE=local %t.rcl > %t.local.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: diff %t.orig.out %t.local.out
// RUN: nm %t.rcl | FileCheck %s --check-prefix=NM
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct pool {
    pthread_mutex_t lock;
    long done;
};
static struct pool the_pool = {PTHREAD_MUTEX_INITIALIZER, 0};
static __thread long my_ops;
static volatile long sink;

// A monitor's task: releases its caller's lock while it computes.
static void work_unlocked(struct pool *p)
{
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < 1000; i++)
        sink += i;
    pthread_mutex_lock(&p->lock);
}

static int add_one(int x) { return x + 1; }
static int twice(int x) { return 2 * x; }
static long whoami(long x) { struct sched_param p; return x + 0 * (long)sched_getparam(0, &p); }
static int by_value(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static int counting(const void *a, const void *b)
{
    my_ops++;
    return *(const int *)a - *(const int *)b;
}

static int (*op_of(int i))(int) { return i ? add_one : twice; }
static long (*lop)(long) = whoami;

// ERR: calls-through-pointers.c:[[@LINE+6]]:5: rcl: cannot convert critical section: calls 'work_unlocked', which releases the section's lock 'pool->lock' (calls-through-pointers.c:38)
// NM-NOT: rcl_cs_relock_in_callee
static void relock_in_callee(struct pool *pool)
{
    pthread_mutex_lock(&pool->lock);
    pool->done++;
    work_unlocked(pool);
    pthread_mutex_unlock(&pool->lock);
}

// BLIND: calls-through-pointers.c:[[@LINE+6]]:9: rcl: cannot convert critical section: calls through pointer 'op', whose possible targets (the program's address-taken functions of its type) are known only from every file's facts (record every file's facts first
// NM-DAG: rcl_cs_apply_op_1
static int apply_op(int i, int x)
{
    int (*op)(int) = op_of(i);
    pthread_mutex_lock(&the_pool.lock);
    x = op(x);
    the_pool.done += x;
    pthread_mutex_unlock(&the_pool.lock);
    return x;
}

// ERR: calls-through-pointers.c:[[@LINE+4]]:9: rcl: cannot convert critical section: calls 'whoami' through pointer 'lop', which acts on the calling thread (sched_getparam), which would be the server (calls-through-pointers.c:46)
static long unsafe_target(long x)
{
    pthread_mutex_lock(&the_pool.lock);
    x = lop(x);
    pthread_mutex_unlock(&the_pool.lock);
    return x;
}

// NM-DAG: rcl_cs_sorted_1
static void sorted(int *a, int n)
{
    pthread_mutex_lock(&the_pool.lock);
    qsort(a, n, sizeof *a, by_value);
    pthread_mutex_unlock(&the_pool.lock);
}

// ERR: calls-through-pointers.c:[[@LINE+4]]:5: rcl: note: converted critical section runs on the server as its caller (with the caller's thread-local storage): it calls 'counting', which uses thread-local variable 'my_ops' (calls-through-pointers.c:50)
static void sorted_counting(int *a, int n)
{
    pthread_mutex_lock(&the_pool.lock);
    qsort(a, n, sizeof *a, counting);
    pthread_mutex_unlock(&the_pool.lock);
}
// A callee that takes the section's lock again: with a recursive mutex the original works,
// and converted, the callee's own section would delegate a section of the same lock from the
// server (which the runtime refuses). With a plain mutex the original deadlocks there, so no
// run that works takes that path: plain_bump converts.
static pthread_mutex_t rec, plain = PTHREAD_MUTEX_INITIALIZER;
static int depth;
static void bump(pthread_mutex_t *m)
{
    pthread_mutex_lock(m);
    depth++;
    pthread_mutex_unlock(m);
}

// ERR: calls-through-pointers.c:[[@LINE+4]]:5: rcl: cannot convert critical section: calls 'bump', which takes the section's lock 'rec' again (calls-through-pointers.c:[[@LINE-5]])
static void nested_bump(void)
{
    pthread_mutex_lock(&rec);
    bump(&rec);
    pthread_mutex_unlock(&rec);
}

// NM-DAG: rcl_cs_plain_bump_1
static void plain_bump(int again)
{
    pthread_mutex_lock(&plain);
    if (again)
        bump(&plain);
    depth++;
    pthread_mutex_unlock(&plain);
}
// The same for a member initialized as a plain mutex wherever it is (pthread_mutex_init with no
// attributes): counter_add_maybe converts.
struct counter {
    pthread_mutex_t m;
    int n;
};
static struct counter the_counter;
static void counter_add(struct counter *c)
{
    pthread_mutex_lock(&c->m);
    c->n++;
    pthread_mutex_unlock(&c->m);
}
// NM-DAG: rcl_cs_counter_add_maybe_1
static void counter_add_maybe(struct counter *c, int again)
{
    pthread_mutex_lock(&c->m);
    if (again)
        counter_add(c);
    c->n++;
    pthread_mutex_unlock(&c->m);
}

// A callee that releases what it took on each of its exits (bump_stripe) releases nothing of
// its caller's: bump_other_stripe converts (found by csmith-diff: the second unlock was taken
// for a release of some element of the array, which may be the section's).
static pthread_mutex_t stripes[2] = {[0 ... 1] = PTHREAD_MUTEX_INITIALIZER};
static int striped[2];
static int bump_stripe(int i, int limit)
{
    pthread_mutex_lock(&stripes[i]);
    if (striped[i] >= limit) {
        pthread_mutex_unlock(&stripes[i]);
        return 0;
    }
    if (striped[i] < 0) {
        pthread_mutex_unlock(&stripes[i]);
        return -1;
    }
    striped[i]++;
    pthread_mutex_unlock(&stripes[i]);
    return 1;
}
// NM-DAG: rcl_cs_bump_other_stripe_1
static void bump_other_stripe(void)
{
    pthread_mutex_lock(&stripes[1]);
    striped[1] += bump_stripe(0, 10);
    pthread_mutex_unlock(&stripes[1]);
}

// A pointer of a type whose address no function of the program has taken (a plugin's
// function, found with dlsym) reaches a function outside the program: as a library function, it
// is not judged, and the conversion says so.
static long (*plugin_fn)(long, long);
static long plugin_result;
// ERR: calls-through-pointers.c:[[@LINE+6]]:25: rcl: note: converted critical section calls through pointer 'plugin_fn' (long (*)(long,long), calls-through-pointers.c:[[@LINE+6]]), a type of which the program takes no function's address: its target lies outside the program (a plugin, a library's caller) and is not judged
// NM-DAG: rcl_cs_call_plugin_1
static void call_plugin(void)
{
    pthread_mutex_lock(&plain);
    if (plugin_fn)
        plugin_result = plugin_fn(1, 2);
    pthread_mutex_unlock(&plain);
}
// ERR: rcl: summary: 10 converted, 4 refused
// BLIND: rcl: summary: 8 converted, 6 refused
// JSON: "unknown_callees": [
// JSON-NEXT: "*"
// JSON: "waiting_for_facts": 2

int main(void)
{
    int a[4] = {3, 1, 2, 0};
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rec, &attr);
    nested_bump();
    plain_bump(0);
    pthread_mutex_init(&the_counter.m, NULL);
    counter_add_maybe(&the_counter, 0);
    printf("counter %d\n", the_counter.n);
    bump_other_stripe();
    printf("stripes %d %d\n", striped[0], striped[1]);
    call_plugin();
    printf("depth %d\n", depth);
    relock_in_callee(&the_pool);
    printf("%d\n", apply_op(1, 2) + apply_op(0, 3));
    printf("%ld\n", unsafe_target(5));
    sorted(a, 4);
    sorted_counting(a, 4);
    printf("%d %d %d %d %ld\n", a[0], a[1], a[2], a[3], the_pool.done);
    return 0;
}
