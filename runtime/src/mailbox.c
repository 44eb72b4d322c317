/*
 * mailbox.c - allocation of mailbox slots.
 *
 * A server's slots live in a list of chunks of RCL_CHUNK_SLOTS cache lines each. Chunks are
 * never freed while the process lives: a server may still read a slot (and find fn == NULL)
 * after its client thread exited. A client takes the lowest free slot, so the scanned range
 * [0, nslots) stays as short as the largest number of clients alive at once; slots of exited
 * threads are reused. There is no compile-time limit on the number of threads.
 *
 * Publication: a new chunk is linked (release store of next) and the slot initialised before
 * nslots is raised (release store); the server's acquire load of nslots therefore sees both.
 *
 * New chunks come from mmap, not malloc: a thread's first section may be one of the program's
 * own malloc, run while it holds another of the allocator's locks (delegate.c, "The program's
 * allocator").
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A zeroed chunk aligned to RCL_CHUNK_ALIGN: twice that mapped, the rest unmapped. */
static struct rcl_chunk *chunk_map(void) {
    size_t align = RCL_CHUNK_ALIGN;
    char *p = mmap(NULL, 2 * align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    char *c = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
    if (c > p) munmap(p, (size_t)(c - p));
    if (c + align < p + 2 * align) munmap(c + align, (size_t)(p + 2 * align - (c + align)));
    return (struct rcl_chunk *)c;
}

struct rcl_mailbox *rcl_mailbox_alloc(struct rcl_server *s) {
    pthread_mutex_lock(&s->reg_lock);
    uint32_t n = atomic_load_explicit(&s->nslots, memory_order_relaxed);
    struct rcl_chunk *c = s->chunks;
    struct rcl_mailbox *mb = NULL;
    for (uint32_t base = 0; base < n && !mb; base += RCL_CHUNK_SLOTS) {
        uint32_t lim = n - base < RCL_CHUNK_SLOTS ? n - base : RCL_CHUNK_SLOTS;
        for (uint32_t i = 0; i < lim; i++)
            if (!atomic_load_explicit(&c->slow[i].in_use, memory_order_acquire)) {
                mb = &c->slot[i]; /* pairs: release in rcl_mailbox_free */
                break;
            }
        c = atomic_load_explicit(&c->next, memory_order_relaxed);
    }
    bool grow = !mb;
    if (grow) { /* slot n: walk to its chunk, linking a new one when n starts a chunk */
        c = s->chunks;
        for (uint32_t k = 0; k < n / RCL_CHUNK_SLOTS; k++) {
            struct rcl_chunk *next = atomic_load_explicit(&c->next, memory_order_relaxed);
            if (!next) {
                if (!(next = chunk_map())) /* (zeroed: fresh anonymous pages) */
                    rcl_die("out of memory allocating a mailbox chunk for server %d", s->index);
                atomic_store_explicit(&c->next, next, memory_order_release);
            }
            c = next;
        }
        mb = &c->slot[n % RCL_CHUNK_SLOTS];
    }
    atomic_store_explicit(&mb->fn, NULL, memory_order_relaxed);
    atomic_store_explicit(&mb->parked, 0, memory_order_relaxed);
    atomic_store_explicit(&rcl_slow(mb)->wait, RCL_WAIT_NONE, memory_order_relaxed);
    rcl_slow(mb)->tid = (int)syscall(SYS_gettid); /* the allocating thread owns the slot */
    rcl_slow(mb)->tp = rcl_caller_tp();
    atomic_store_explicit(&rcl_slow(mb)->in_use, 1, memory_order_relaxed);
    if (grow) /* pairs: the server's acquire load of nslots in scan() */
        atomic_store_explicit(&s->nslots, n + 1, memory_order_release);
    pthread_mutex_unlock(&s->reg_lock);
    return mb;
}

void rcl_mailbox_free(struct rcl_mailbox *mb) {
    /* The owner is not waiting on it, so fn is NULL: the slot can go to another thread. */
    atomic_store_explicit(&rcl_slow(mb)->in_use, 0, memory_order_release);
}
