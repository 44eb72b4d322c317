// A program that defines malloc itself, whose sections are converted (what rcl-rewrite makes of
// jemalloc built in): the runtime's own allocations reach them. Like jemalloc, the allocator
// initialises under a lock it holds in place (init_lock) and takes another one in place around
// its converted sections (arena_lock), so a runtime that started or registered a thread from
// inside one of them, and allocated there, would wait for itself (alarm: exit 142).
// - rcl_delegate_allocator never starts the runtime: the initialisation's section runs in place;
// - rcl_start, from a constructor as rcl-rewrite writes it, starts it outside the allocator;
//   its allocations (hwloc, the servers) run their sections in place;
// - a thread's first section registers it without allocating: it holds arena_lock then;
// - in delegate mode every section of the worker threads ran on a server;
// - a forked child's sections run in place (its runtime is not started again by them).
// Before the fix (sections through rcl_delegate, registration with calloc) this hung at once.
// UNSUPPORTED: sanitizer
// RUN: %cc %s -o %t %rcl_libs
// RUN: env RCL_MODE=delegate %t | FileCheck %s --check-prefix=DELEGATE
// RUN: env RCL_MODE=adaptive %t | FileCheck %s
// RUN: env RCL_MODE=local %t | FileCheck %s
// DELEGATE: delegated 4000 of 4000
// CHECK: allocations 4000 in threads; child 0
#include <errno.h>
#include <pthread.h>
#include <rcl/rcl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define HEAP (512u << 20)
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;  /* held in place (not converted) */
static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER; /* held in place (not converted) */
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;  /* converted sections */
static char *heap;
static size_t used;
static int initialised;
static long on_server, in_threads;
static __thread int worker_thread;

/* The sections, as rcl-rewrite outlines them. */
struct bump_ctx {
    size_t size, align;
    char *p;
};
static int bump(void *arg) {
    struct bump_ctx *c = arg;
    size_t at = (used + 16 + c->align - 1) & ~(c->align - 1); /* 16 bytes of header before */
    if (at + c->size > HEAP) return ENOMEM;
    used = at + c->size;
    c->p = heap + at;
    ((size_t *)c->p)[-1] = c->size;
    return 0;
}
static int count(void *arg) {
    in_threads++;
    if (rcl_on_server()) on_server++;
    return bump(arg);
}
static int map_heap(void *arg) {
    (void)arg;
    heap = mmap(NULL, HEAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return heap == MAP_FAILED ? ENOMEM : 0;
}

static void init(void) {
    pthread_mutex_lock(&init_lock);
    if (!initialised) {
        if (rcl_delegate_allocator(&heap_lock, map_heap, NULL, 0) != 0) abort();
        initialised = 1;
    }
    pthread_mutex_unlock(&init_lock);
}

static void *alloc(size_t size, size_t align) {
    if (!initialised) init();
    struct bump_ctx c = {size ? size : 1, align < 16 ? 16 : align, NULL};
    pthread_mutex_lock(&arena_lock);
    int err = rcl_delegate_allocator(&heap_lock, worker_thread ? count : bump, &c, sizeof c);
    pthread_mutex_unlock(&arena_lock);
    if (err) errno = err;
    return err ? NULL : c.p;
}

void *malloc(size_t size) {
    return alloc(size, 16);
}
void free(void *p) {
    (void)p;
}
void *calloc(size_t n, size_t size) {
    void *p = alloc(n * size, 16); /* (fresh anonymous pages: zero) */
    return p;
}
size_t malloc_usable_size(void *p) {
    return p ? ((size_t *)p)[-1] : 0;
}
void *realloc(void *old, size_t size) {
    void *p = alloc(size, 16);
    if (p && old) memcpy(p, old, malloc_usable_size(old) < size ? malloc_usable_size(old) : size);
    return p;
}
int posix_memalign(void **out, size_t align, size_t size) {
    void *p = alloc(size, align);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
void *aligned_alloc(size_t align, size_t size) {
    return alloc(size, align);
}
void *memalign(size_t align, size_t size) {
    return alloc(size, align);
}
void *valloc(size_t size) {
    return alloc(size, 4096);
}
void *pvalloc(size_t size) {
    return alloc((size + 4095) & ~(size_t)4095, 4096);
}

__attribute__((constructor(101))) static void start(void) {
    rcl_start();
}

static void *worker(void *arg) {
    (void)arg;
    worker_thread = 1;
    for (int i = 0; i < 1000; i++) {
        char *p = malloc(24);
        if (!p) abort();
        memset(p, i, 24);
        free(p);
    }
    return NULL;
}

int main(void) {
    alarm(30);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0) return 1;
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    int delegate = rcl_mode() == RCL_MODE_DELEGATE;
    if (delegate) printf("delegated %ld of %ld\n", on_server, in_threads);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        worker_thread = 1;
        for (int i = 0; i < 100; i++)
            if (!malloc(100)) _exit(2);
        _exit(on_server == 4000 || !delegate ? 0 : 3); /* none on a server */
    }
    int st = -1;
    waitpid(pid, &st, 0);
    printf("allocations %ld in threads; child %d\n", in_threads, WEXITSTATUS(st));
    return 0;
}
