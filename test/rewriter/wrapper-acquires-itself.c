// A declared lock wrapper that takes its mutex through functions it calls (jemalloc's
// malloc_mutex_lock: `if (malloc_mutex_trylock_final(m)) malloc_mutex_lock_slow(m);`, spinning
// and counting on the way) cannot stand for one lock: its sections are refused with that
// reason, not as "still held at the end of its block", which was false (the unlock is in the
// same block; issue 30, item 10). Byte-identical.
// RUN: %rcl-rewrite --all --lock-fn=je_lock --unlock-fn=je_unlock %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>
#include <stdbool.h>
typedef struct { pthread_mutex_t lock; bool locked; long nops; } je_mutex_t;
static bool isthreaded = true;
static inline bool trylock_final(je_mutex_t *m) { return pthread_mutex_trylock(&m->lock) != 0; }
static void lock_slow(je_mutex_t *m) { pthread_mutex_lock(&m->lock); }
static inline void je_lock(je_mutex_t *m) {
    if (isthreaded) {
        if (trylock_final(m)) {
            lock_slow(m);
            m->locked = true;
        }
        m->nops++;
    }
}
static inline void je_unlock(je_mutex_t *m) {
    m->locked = false;
    if (isthreaded)
        pthread_mutex_unlock(&m->lock);
}
je_mutex_t mtx;
int counter;
void bump(void) {
    je_lock(&mtx);
    // CHECK: wrapper-acquires-itself.c:[[@LINE-1]]:5: rcl: cannot convert critical section: lock wrapper 'je_lock' does more than lock its first argument, and it calls no pthread_mutex_lock nor declared lock wrapper itself (the lock happens in functions it calls
    counter++;
    je_unlock(&mtx);
}
