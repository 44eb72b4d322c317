/*
 * table.c - the lock table: mutex address -> current lock record, lock-free.
 *
 * Two anonymous mappings, both reserved at start-up and touched only as they fill (so memory
 * grows with the number of locks actually seen, up to a fixed bound):
 *
 *   slots[]   open addressing, linear probing, 2^k entries of {key, rec, init_pc}. A slot's
 *             key goes from 0 to a mutex address once (CAS) and never changes again, so a
 *             probe sequence is never broken and there is no deletion. `rec` is the index
 *             of the address's current record, 0 while it has none: pthread_mutex_destroy
 *             stores 0, and the next use creates a new record ("destroy + init = new lock").
 *   prof_records[] the arena of lock records, allocated by one fetch_add on the new-lock path.
 *             Record 1 is the shared overflow record, used once the arena or the probe
 *             limit is exhausted; record 0 is never used.
 *
 * Ordering: a new record is filled in and then published with a release CAS on slot->rec; a
 * reader's acquire load of slot->rec pairs with it. Only the new-lock path and destroy write a
 * slot; the hot path reads two words.
 *
 * Bound: RCL_PROF_MAX_LOCKS records (default 131072; 384 bytes each) and twice that many
 * slots (at least 2^18) rounded to a power of two (24 bytes each): about 51 MiB of address
 * space, of which a program with 100,000 mutexes touches about 44 MiB. A lock that finds the
 * arena full is counted in prof_locks_untracked and shares record 1; an address that finds no
 * slot within MAX_PROBES shares record 1 without being counted.
 */
#include "prof.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct slot {
    _Atomic uint64_t key;
    _Atomic uint32_t rec;
    _Atomic uint32_t generation;
    _Atomic uint64_t init_pc;
};

#define MAX_PROBES        256
#define DEFAULT_MAX_LOCKS 131072u
#define MIN_SLOTS         262144u /* addresses, including those beyond the arena, stay identified */

static struct slot *slots;
static uint64_t slot_mask;
static int slot_shift;
PROF_HIDDEN struct lock_record *prof_records;
static uint64_t record_capacity;
static _Atomic uint64_t records_used; /* next free index */
PROF_HIDDEN _Atomic uint64_t prof_locks_untracked;
PROF_HIDDEN _Atomic uint32_t prof_lock_epoch;

static void *map_zeroed(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static int map_tables(void) {
    slots = map_zeroed((slot_mask + 1) * sizeof *slots);
    prof_records = map_zeroed(record_capacity * sizeof *prof_records);
    if (!slots || !prof_records) return -1;
    atomic_store_explicit(&records_used, 2, memory_order_relaxed);
    prof_records[1].identity_source = IDENT_OVERFLOW;
    return 0;
}

int prof_table_init(void) {
    uint64_t cap = DEFAULT_MAX_LOCKS;
    const char *env = getenv("RCL_PROF_MAX_LOCKS");
    if (env && *env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end == '\0' && v >= 16 && v <= (1ull << 26)) cap = v;
    }
    record_capacity = cap + 2;
    uint64_t nslots = 1;
    slot_shift = 64;
    while (nslots < 2 * cap || nslots < MIN_SLOTS) {
        nslots <<= 1;
        slot_shift--;
    }
    slot_mask = nslots - 1;
    return map_tables();
}

/* In a forked child: start from empty tables (the parent's numbers stay the parent's). The
 * child has one thread, so nothing races with this. */
void prof_table_reset_after_fork(void) {
    munmap(slots, (slot_mask + 1) * sizeof *slots);
    munmap(prof_records, record_capacity * sizeof *prof_records);
    map_tables();
}

static inline uint64_t slot_hash(uint64_t key) {
    return ((key >> 3) * 0x9E3779B97F4A7C15ull) >> slot_shift;
}

/* The slot of addr, inserted when `insert`; NULL when absent or the probe limit is hit. */
static struct slot *find_slot(uint64_t key, int insert) {
    uint64_t i = slot_hash(key);
    for (int probe = 0; probe < MAX_PROBES; probe++, i = (i + 1) & slot_mask) {
        struct slot *s = &slots[i];
        uint64_t k = atomic_load_explicit(&s->key, memory_order_acquire);
        if (PROF_LIKELY(k == key)) return s;
        if (k == 0) {
            if (!insert) return NULL;
            uint64_t expected = 0;
            /* pairs with the acquire load above in other threads' probes */
            if (atomic_compare_exchange_strong_explicit(
                    &s->key, &expected, key, memory_order_acq_rel, memory_order_acquire) ||
                expected == key)
                return s;
        }
    }
    return NULL;
}

static struct lock_record *new_record(struct slot *s, uint64_t key, uint64_t pc) {
    uint64_t idx = atomic_fetch_add_explicit(&records_used, 1, memory_order_relaxed);
    if (idx >= record_capacity) {
        atomic_store_explicit(&records_used, record_capacity, memory_order_relaxed);
        uint32_t expected = 0;
        if (atomic_compare_exchange_strong_explicit(&s->rec, &expected, 1, memory_order_release,
                                                    memory_order_relaxed))
            atomic_fetch_add_explicit(&prof_locks_untracked, 1, memory_order_relaxed);
        return &prof_records[1];
    }
    struct lock_record *r = &prof_records[idx];
    uint64_t init_pc = atomic_load_explicit(&s->init_pc, memory_order_relaxed);
    r->init_pc = init_pc ? init_pc : pc;
    r->identity_source = init_pc ? IDENT_INIT : IDENT_FIRST_LOCK;
    r->generation = atomic_load_explicit(&s->generation, memory_order_relaxed);
    r->address = key;
    uint32_t expected = 0;
    /* release: the fields above are visible to whoever loads rec with acquire */
    if (atomic_compare_exchange_strong_explicit(&s->rec, &expected, (uint32_t)idx,
                                                memory_order_release, memory_order_acquire))
        return r;
    r->address = 0; /* lost the race: this record stays unused, the dump skips it */
    return &prof_records[expected];
}

struct lock_record *prof_record(const void *addr, uint64_t pc) {
    uint64_t key = (uint64_t)(uintptr_t)addr;
    struct slot *s = find_slot(key, 1);
    if (PROF_UNLIKELY(!s)) /* more addresses than slots: shared, and not counted one by one */
        return &prof_records[1];
    uint32_t idx = atomic_load_explicit(&s->rec, memory_order_acquire); /* pairs: new_record */
    if (PROF_LIKELY(idx)) return &prof_records[idx];
    return new_record(s, key, pc);
}

/* Adds n acquisitions at call site pc to r: the first PROF_SITES sites get an entry (claimed
 * with a CAS), later ones are only counted together. `excl`: no other writer (plain adds). */
void prof_count_site(struct lock_record *r, uint64_t pc, int kind, uint64_t n, int excl) {
    for (int i = 0; i < PROF_SITES; i++) {
        struct lock_site *s = &r->sites[i];
        uint64_t p = atomic_load_explicit(&s->pc, memory_order_relaxed);
        if (p == 0 && atomic_compare_exchange_strong_explicit(&s->pc, &p, pc, memory_order_relaxed,
                                                              memory_order_relaxed)) {
            /* only the winner writes kind; a dump in between reads 0 (lock) for it */
            atomic_store_explicit(&s->kind, (uint32_t)kind, memory_order_relaxed);
            p = pc;
        }
        if (p == pc) {
            if (excl)
                atomic_store_explicit(&s->count,
                                      atomic_load_explicit(&s->count, memory_order_relaxed) + n,
                                      memory_order_relaxed);
            else
                atomic_fetch_add_explicit(&s->count, n, memory_order_relaxed);
            return;
        }
    }
    atomic_fetch_add_explicit(&r->other_sites, n, memory_order_relaxed);
}

void prof_lock_initialised(const void *addr, uint64_t pc) {
    struct slot *s = find_slot((uint64_t)(uintptr_t)addr, 1);
    if (!s) return;
    if (atomic_exchange_explicit(&s->rec, 0, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&s->generation, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&prof_lock_epoch, 1, memory_order_relaxed); /* see tc_entry */
    }
    atomic_store_explicit(&s->init_pc, pc, memory_order_relaxed);
}

void prof_lock_destroyed(const void *addr) {
    struct slot *s = find_slot((uint64_t)(uintptr_t)addr, 0);
    if (!s) return;
    if (atomic_exchange_explicit(&s->rec, 0, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&s->generation, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&prof_lock_epoch, 1, memory_order_relaxed); /* see tc_entry */
    }
    atomic_store_explicit(&s->init_pc, 0, memory_order_relaxed);
}

uint64_t prof_table_records_end(void) {
    uint64_t n = atomic_load_explicit(&records_used, memory_order_relaxed);
    return n > record_capacity ? record_capacity : n;
}

const struct lock_record *prof_table_record(uint64_t i) {
    return &prof_records[i];
}
