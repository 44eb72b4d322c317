/*
 * baselines.c - mutexee, ccsynch and ffwd for the benchmarks (see baselines.h for the papers).
 *
 * Design notes, one per lock:
 *
 * mutexee: the lock word is a futex word with a separate count of sleepers, so that a spinner
 *   taking a free lock (0 -> 1) never erases the fact that others sleep. lock(): spin, trying
 *   the word whenever it reads free, for spin_cycles (set by the caller to about one futex
 *   wake-up round trip: spinning longer wastes more than parking costs, shorter parks threads
 *   that would have got the lock soon); then count itself a sleeper and exchange/park until it
 *   gets the lock. unlock(): release the word; if anybody sleeps, watch the word for
 *   handoff_cycles: if a spinner takes the lock in that window nobody is woken (the new owner
 *   will do the same check when it unlocks); else wake one sleeper. Correctness of the check:
 *   the unlocker's release, fence, read of `sleepers` against the sleeper's increment and
 *   exchange: one of the two sees the other.
 *
 * ccsynch: the queue's tail always holds a dummy node whose owner-to-be is the next arrival.
 *   A thread swaps its spare node in as the new tail, writes its request into the old tail
 *   node, links it and waits on the old node's `wait`. Whoever finds it neither waiting nor
 *   completed is the combiner: it runs the requests from its own node along `next` (at most
 *   H), marking each completed, and then clears `wait` of the first node it did not run, which
 *   makes that node's owner the next combiner (or leaves the role with the dummy). The node a
 *   thread wrote its request into becomes its spare, so nodes migrate between threads.
 *
 * ffwd: the server scans the request lines group by group (15 clients per group); a request
 *   is pending when the client's toggle differs from the one the server last answered. It
 *   runs the pending requests of a group, then publishes their results in the group's
 *   response line with one store of the toggle word (release), so that one cache-line
 *   transfer answers up to 15 clients. The server never blocks (spin-only, as in the paper);
 *   return values are 32-bit here (the paper's are 64-bit with 7 per line; our critical
 *   sections return int, which lets 15 share a line as the paper's grouping describes).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "baselines.h"

#include "arch.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ mutexee */

void bl_mutexee_init(struct bl_mutexee *m, uint64_t spin_cycles, uint64_t handoff_cycles) {
    memset(m, 0, sizeof *m);
    m->spin_cycles = spin_cycles;
    m->handoff_cycles = handoff_cycles;
}

static int mutexee_try(struct bl_mutexee *m) {
    uint32_t free_word = 0;
    return atomic_load_explicit(&m->locked, memory_order_relaxed) == 0 &&
           atomic_compare_exchange_strong_explicit(&m->locked, &free_word, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

void bl_mutexee_lock(struct bl_mutexee *m) {
    if (mutexee_try(m)) return;
    uint64_t deadline = rcl_ticks() + m->spin_cycles;
    while (rcl_ticks() < deadline) {
        if (mutexee_try(m)) return;
        rcl_cpu_relax();
    }
    atomic_fetch_add(&m->sleepers, 1);
    while (atomic_exchange_explicit(&m->locked, 1, memory_order_acquire) != 0)
        rcl_futex_wait(&m->locked, 1, 0);
    atomic_fetch_sub_explicit(&m->sleepers, 1, memory_order_relaxed);
}

void bl_mutexee_unlock(struct bl_mutexee *m) {
    atomic_store_explicit(&m->locked, 0, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&m->sleepers, memory_order_relaxed) == 0) return;
    uint64_t deadline = rcl_ticks() + m->handoff_cycles;
    while (rcl_ticks() < deadline) {
        if (atomic_load_explicit(&m->locked, memory_order_relaxed) != 0)
            return; /* a spinner has it; its unlock will look at the sleepers again */
        rcl_cpu_relax();
    }
    rcl_futex_wake(&m->locked, 1);
}

/* ------------------------------------------------------------------ ccsynch */

static struct bl_ccsynch_node *ccsynch_node_new(void) {
    struct bl_ccsynch_node *n = aligned_alloc(64, sizeof *n);
    if (n) memset(n, 0, sizeof *n);
    return n;
}

int bl_ccsynch_init(struct bl_ccsynch *c, int max_combine) {
    memset(c, 0, sizeof *c);
    struct bl_ccsynch_node *dummy = ccsynch_node_new();
    if (!dummy) return ENOMEM;
    atomic_store(&c->tail, dummy);
    c->max_combine = max_combine > 0 ? max_combine : 1;
    return 0;
}

void bl_ccsynch_destroy(struct bl_ccsynch *c) {
    free(atomic_load(&c->tail));
}

int bl_ccsynch_thread_init(struct bl_ccsynch_thread *t) {
    t->node = ccsynch_node_new();
    return t->node ? 0 : ENOMEM;
}

void bl_ccsynch_thread_fini(struct bl_ccsynch_thread *t) {
    free(t->node); /* the spare: no longer reachable from the queue */
    t->node = NULL;
}

int bl_ccsynch_apply(struct bl_ccsynch *c, struct bl_ccsynch_thread *t, bl_cs_fn fn, void *ctx) {
    struct bl_ccsynch_node *spare = t->node;
    atomic_store_explicit(&spare->next, NULL, memory_order_relaxed);
    atomic_store_explicit(&spare->wait, 1, memory_order_relaxed);
    atomic_store_explicit(&spare->completed, 0, memory_order_relaxed);
    struct bl_ccsynch_node *mine = atomic_exchange_explicit(&c->tail, spare, memory_order_acq_rel);
    mine->fn = fn;
    mine->ctx = ctx;
    atomic_store_explicit(&mine->next, spare, memory_order_release);
    t->node = mine;
    while (atomic_load_explicit(&mine->wait, memory_order_acquire))
        rcl_cpu_relax();
    if (atomic_load_explicit(&mine->completed, memory_order_relaxed)) return mine->ret;

    uint64_t t0 = c->timed ? rcl_ticks() : 0;
    struct bl_ccsynch_node *n = mine, *next;
    int ran = 0;
    while ((next = atomic_load_explicit(&n->next, memory_order_acquire)) && ran < c->max_combine) {
        n->ret = n->fn(n->ctx);
        atomic_store_explicit(&n->completed, 1, memory_order_relaxed);
        atomic_store_explicit(&n->wait, 0, memory_order_release);
        n = next;
        ran++;
    }
    atomic_store_explicit(&n->wait, 0, memory_order_release); /* the next combiner */
    if (c->timed) {
        atomic_fetch_add_explicit(&c->combine_cycles, rcl_ticks() - t0, memory_order_relaxed);
        atomic_fetch_add_explicit(&c->combined, (uint64_t)ran, memory_order_relaxed);
        atomic_fetch_add_explicit(&c->rounds, 1, memory_order_relaxed);
    }
    return mine->ret;
}

/* ------------------------------------------------------------------ ffwd */

static void *ffwd_server(void *arg) {
    struct bl_ffwd *f = arg;
    if (f->cpu >= 0) {
        cpu_set_t s;
        CPU_ZERO(&s);
        CPU_SET(f->cpu, &s);
        pthread_setaffinity_np(pthread_self(), sizeof s, &s);
    }
    int ngroups = (f->max_clients + BL_FFWD_GROUP - 1) / BL_FFWD_GROUP;
    uint32_t *answered = calloc((size_t)ngroups, sizeof *answered); /* the server's toggles */
    int32_t(*ret)[BL_FFWD_GROUP] = calloc((size_t)ngroups, sizeof *ret);
    uint64_t served = 0, idle = 0;
    while (!atomic_load_explicit(&f->stop, memory_order_relaxed)) {
        int n = atomic_load_explicit(&f->nclients, memory_order_acquire), any = 0;
        for (int g = 0; g * BL_FFWD_GROUP < n; g++) {
            int in_group = n - g * BL_FFWD_GROUP, ran = 0;
            if (in_group > BL_FFWD_GROUP) in_group = BL_FFWD_GROUP;
            for (int i = 0; i < in_group; i++) {
                struct bl_ffwd_request *r = &f->req[g * BL_FFWD_GROUP + i];
                uint32_t want = atomic_load_explicit(&r->toggle, memory_order_acquire);
                if (want == ((answered[g] >> i) & 1u)) continue;
                ret[g][i] = r->fn(r->ctx);
                answered[g] ^= 1u << i;
                ran++;
            }
            if (!ran) continue;
            memcpy(f->resp[g].ret, ret[g], sizeof ret[g]);
            atomic_store_explicit(&f->resp[g].toggles, answered[g], memory_order_release);
            served += (uint64_t)ran;
            any = 1;
        }
        if (!any) {
            idle++;
            rcl_cpu_relax();
        }
    }
    atomic_store(&f->served, served);
    atomic_store(&f->idle_rounds, idle);
    free(answered);
    free(ret);
    return NULL;
}

int bl_ffwd_start(struct bl_ffwd *f, int max_clients, int cpu) {
    memset(f, 0, sizeof *f);
    int ngroups = (max_clients + BL_FFWD_GROUP - 1) / BL_FFWD_GROUP;
    f->max_clients = max_clients;
    f->cpu = cpu;
    f->req = aligned_alloc(64, sizeof *f->req * (size_t)max_clients);
    f->resp = aligned_alloc(64, sizeof *f->resp * (size_t)ngroups);
    if (!f->req || !f->resp) return ENOMEM;
    memset(f->req, 0, sizeof *f->req * (size_t)max_clients);
    memset(f->resp, 0, sizeof *f->resp * (size_t)ngroups);
    return pthread_create(&f->thread, NULL, ffwd_server, f);
}

void bl_ffwd_stop(struct bl_ffwd *f) {
    atomic_store(&f->stop, 1);
    pthread_join(f->thread, NULL);
    free(f->req);
    free(f->resp);
}

int bl_ffwd_client_open(struct bl_ffwd *f) {
    int slot = atomic_load(&f->nclients);
    /* Slots are handed out in order and published by the increment, so the server never
     * scans a slot whose owner has not started. */
    while (slot < f->max_clients && !atomic_compare_exchange_weak(&f->nclients, &slot, slot + 1))
        ;
    return slot < f->max_clients ? slot : -1;
}

void bl_ffwd_post(struct bl_ffwd *f, int slot, bl_cs_fn fn, void *ctx) {
    struct bl_ffwd_request *r = &f->req[slot];
    r->fn = fn;
    r->ctx = ctx;
    atomic_store_explicit(&r->toggle, atomic_load_explicit(&r->toggle, memory_order_relaxed) ^ 1u,
                          memory_order_release);
}

int bl_ffwd_answered(struct bl_ffwd *f, int slot, int *ret) {
    int g = slot / BL_FFWD_GROUP, i = slot % BL_FFWD_GROUP;
    uint32_t mine = atomic_load_explicit(&f->req[slot].toggle, memory_order_relaxed);
    uint32_t toggles = atomic_load_explicit(&f->resp[g].toggles, memory_order_acquire);
    if (((toggles >> i) & 1u) != mine) return 0;
    if (ret) *ret = f->resp[g].ret[i];
    return 1;
}

int bl_ffwd_call(struct bl_ffwd *f, int slot, bl_cs_fn fn, void *ctx) {
    int ret;
    bl_ffwd_post(f, slot, fn, ctx);
    while (!bl_ffwd_answered(f, slot, &ret))
        rcl_cpu_relax();
    return ret;
}
