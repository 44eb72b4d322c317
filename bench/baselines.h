/*
 * baselines.h - three published lock designs, re-implemented small for the benchmarks only
 * (docs/benchmarks.md). Ours, written from the papers, not copied from their code:
 *
 *   mutexee  - "Unlocking Energy" (Falsafi et al., USENIX ATC'16): spin about as long as a
 *              futex wake-up round trip costs, then park on a futex; unlock does not wake a
 *              sleeper when a spinner takes the lock within a short window.
 *   ccsynch  - CC-Synch (Fatourou & Kallimanis, PPoPP'12): a queue of request nodes; the
 *              thread at the head becomes the combiner and runs up to H queued requests.
 *   ffwd     - ffwd (Roghanchi et al., SOSP'17): a dedicated, spin-only server thread; each
 *              client owns a request line; answers go into server-owned response lines, each
 *              shared by up to 15 clients and flagged by one toggle bit per client.
 *
 * A critical section has the shape of rcl_delegate's: int fn(void *ctx).
 */
#ifndef RCL_BENCH_BASELINES_H
#define RCL_BENCH_BASELINES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef int (*bl_cs_fn)(void *ctx);

/* ------------------------------------------------------------------ mutexee */

struct bl_mutexee {
    _Atomic uint32_t locked; /* 0 free, 1 held: the futex word */
    char pad0[60];
    _Atomic uint32_t sleepers; /* threads parked (or about to park) on `locked` */
    uint64_t spin_cycles;      /* lock: spin this long (TSC cycles) before parking */
    uint64_t handoff_cycles;   /* unlock: wait this long for a spinner before waking */
} __attribute__((aligned(64)));

void bl_mutexee_init(struct bl_mutexee *m, uint64_t spin_cycles, uint64_t handoff_cycles);
void bl_mutexee_lock(struct bl_mutexee *m);
void bl_mutexee_unlock(struct bl_mutexee *m);

/* ------------------------------------------------------------------ ccsynch */

struct bl_ccsynch_node {
    bl_cs_fn fn;
    void *ctx;
    int ret;
    _Atomic int wait;      /* 1 while the owner must wait */
    _Atomic int completed; /* 1 once a combiner ran the request */
    _Atomic(struct bl_ccsynch_node *) next;
} __attribute__((aligned(64)));

struct bl_ccsynch {
    _Atomic(struct bl_ccsynch_node *) tail;
    int max_combine; /* H: requests one combiner runs before handing the role on */
    int timed;       /* count combining time (the probes; costs two TSC reads per round) */
    _Atomic uint64_t combine_cycles, combined, rounds;
} __attribute__((aligned(64)));

/* One per thread: the node this thread will enqueue next (nodes move between threads). */
struct bl_ccsynch_thread {
    struct bl_ccsynch_node *node;
};

int bl_ccsynch_init(struct bl_ccsynch *c, int max_combine);
void bl_ccsynch_destroy(struct bl_ccsynch *c);
int bl_ccsynch_thread_init(struct bl_ccsynch_thread *t);
void bl_ccsynch_thread_fini(struct bl_ccsynch_thread *t);
int bl_ccsynch_apply(struct bl_ccsynch *c, struct bl_ccsynch_thread *t, bl_cs_fn fn, void *ctx);

/* ------------------------------------------------------------------ ffwd */

#define BL_FFWD_GROUP 15 /* clients per response line */

struct bl_ffwd_request { /* written by its client, read by the server */
    bl_cs_fn fn;
    void *ctx;
    _Atomic uint32_t toggle; /* flipped by the client to post a request */
} __attribute__((aligned(64)));

struct bl_ffwd_response {     /* written by the server only */
    _Atomic uint32_t toggles; /* bit i: last request of client i of the group answered */
    int32_t ret[BL_FFWD_GROUP];
} __attribute__((aligned(64)));

struct bl_ffwd {
    int max_clients, cpu;
    struct bl_ffwd_request *req;
    struct bl_ffwd_response *resp;
    _Atomic int nclients, stop;
    _Atomic uint64_t served, idle_rounds;
    pthread_t thread;
};

/* Starts the server thread, pinned to `cpu` (-1: not pinned). Returns 0 or an errno. */
int bl_ffwd_start(struct bl_ffwd *f, int max_clients, int cpu);
void bl_ffwd_stop(struct bl_ffwd *f);
int bl_ffwd_client_open(struct bl_ffwd *f); /* a client slot, -1 when all are taken */
void bl_ffwd_post(struct bl_ffwd *f, int slot, bl_cs_fn fn, void *ctx);
int bl_ffwd_answered(struct bl_ffwd *f, int slot, int *ret);
int bl_ffwd_call(struct bl_ffwd *f, int slot, bl_cs_fn fn, void *ctx);

#endif
