/*
 * interpose_floor.c - the least any LD_PRELOAD lock profiler does: pthread_mutex_lock, _trylock
 * and _unlock interposed by symbol, each forwarding to the next definition (libc's) through a
 * pointer resolved once, and nothing else. overhead.py runs every shape under it ("floor"),
 * side by side with the program alone and under rcl-prof: what rcl-prof costs above the floor
 * is its bookkeeping; the floor itself is the price of being called instead of libc (a call
 * through a pointer more per lock and unlock, and an unlock that releases a little later), which
 * no preloaded tool can go below (docs/profiler.md, "Overhead").
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

typedef int (*mutex_fn)(pthread_mutex_t *);
static mutex_fn real_lock, real_trylock, real_unlock;

static mutex_fn resolve(const char *name) {
    mutex_fn f = (mutex_fn)dlsym(RTLD_NEXT, name);
    if (!f) abort();
    return f;
}

/* Before any thread is started (a constructor), so the pointers are read-only afterwards. */
__attribute__((constructor)) static void floor_init(void) {
    real_lock = resolve("pthread_mutex_lock");
    real_trylock = resolve("pthread_mutex_trylock");
    real_unlock = resolve("pthread_mutex_unlock");
}

int pthread_mutex_lock(pthread_mutex_t *m) {
    return real_lock(m);
}
int pthread_mutex_trylock(pthread_mutex_t *m) {
    return real_trylock(m);
}
int pthread_mutex_unlock(pthread_mutex_t *m) {
    return real_unlock(m);
}
