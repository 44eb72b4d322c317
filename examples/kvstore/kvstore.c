/*
 * kvstore - an in-memory key-value cache served by worker threads, written the way legacy C
 * servers are (memcached's shape, without the network): the program `rcl demo` profiles,
 * converts and compares.
 *
 * Locks, from hot to cold:
 *
 *   cache_lock       one global mutex over the hash index, the LRU list, the item pool's free
 *                    list and the cache counters. Every get/set/delete takes it, and its
 *                    critical sections touch many cache lines: a hash chain, the LRU
 *                    neighbours, the counters and the item's value (several lines).
 *   bucket_locks[i]  a striped array over the per-key counters that `incr` updates.
 *   stats_lock       the global statistics, behind STATS_LOCK()/STATS_UNLOCK() macros; a
 *                    worker folds its local counts in every STATS_FOLD_OPS operations.
 *   maint_lock       + maint_cond: a background maintainer thread sleeps on the condition
 *                    variable until a worker reports evictions (or 20 ms pass), then expires
 *                    items whose time-to-live has passed, from the LRU tail.
 *
 * On exit the program checks its own results (counts consistent between the threads' tallies
 * and the store, LRU list = hash index = item count, no lost increment, no torn value) and
 * exits with status 1 if any check fails. It prints throughput, p50/p99 latency of one
 * operation, CPU time, and one machine-readable line:
 *
 *   RCL_RESULT {"program":"kvstore","threads":2,...,"throughput_ops_s":...,"p99_ns":...}
 *
 * which `rcl compare` reads (docs/cli.md). Run `kvstore --help` for the options.
 */
#define _GNU_SOURCE /* getopt_long */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define KEY_MAX         16
#define NBUCKET_LOCKS   64 /* a power of two */
#define STATS_FOLD_OPS  1024
#define HIST_SUB_BITS   4
#define HIST_BUCKETS    (64 << HIST_SUB_BITS)
#define MAINT_BATCH     32  /* items examined per hold of cache_lock by the maintainer */
#define MAINT_EVICTIONS 256 /* a worker wakes the maintainer after this many evictions */
#define MAINT_PERIOD_NS 20000000L

/* ---- options ---- */

struct options {
    int threads;
    double seconds;
    unsigned keys;
    unsigned capacity;
    unsigned value_size;
    unsigned mix[4]; /* percent of get, set, incr, delete */
    unsigned short_ttl_percent;
    uint64_t seed;
    int fault_lost_update;
};

static struct options opt = {
    .threads = 2,
    .seconds = 2.0,
    .keys = 65536,
    .capacity = 16384,
    .value_size = 512,
    .mix = {70, 20, 8, 2},
    .short_ttl_percent = 10,
    .seed = 1,
};

/* ---- the store, all of it protected by cache_lock ---- */

struct item {
    struct item *h_next;      /* hash chain, or the free list */
    struct item *prev, *next; /* LRU list, most recently used first */
    uint64_t exptime_ns;      /* 0: never expires */
    uint64_t hits;            /* gets that found this item */
    uint32_t hv;              /* hash of the key */
    uint32_t stamp;           /* which set wrote the value: the bytes derive from (hv, stamp) */
    uint16_t nvalue;
    char key[KEY_MAX];
    uint64_t value[]; /* opt.value_size bytes */
};

struct cache_stats {
    uint64_t curr_items;
    uint64_t inserts;  /* sets that added an item */
    uint64_t replaced; /* sets that overwrote an item */
    uint64_t get_hits, get_misses;
    uint64_t deletes, delete_misses;
    uint64_t evictions, expired;
    uint64_t removed_hits; /* hits of the items that left the store */
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct item **hash_table;
static uint32_t hash_mask;
static struct item *lru_head, *lru_tail;
static struct item *free_list;
static struct cache_stats cstats;
static unsigned char *item_pool;
static size_t item_size;

/* ---- per-key counters, striped over bucket_locks ---- */

struct bucket_tally {
    uint64_t incrs;
    char pad[64 - sizeof(uint64_t)];
};

static pthread_mutex_t bucket_locks[NBUCKET_LOCKS];
static struct bucket_tally bucket_tallies[NBUCKET_LOCKS];
static uint64_t *counters; /* counters[key] is protected by bucket_locks[key % NBUCKET_LOCKS] */

/* ---- global statistics (cold) ---- */

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
#define STATS_LOCK()   pthread_mutex_lock(&stats_lock)
#define STATS_UNLOCK() pthread_mutex_unlock(&stats_lock)

struct global_stats {
    uint64_t ops, gets, sets, incrs, deletes;
    uint64_t hist[HIST_BUCKETS];
    uint64_t max_ns;
};
static struct global_stats gstats;

/* ---- the maintainer ---- */

static pthread_mutex_t maint_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t maint_cond = PTHREAD_COND_INITIALIZER;
static int maint_requested;    /* protected by maint_lock */
static uint64_t maint_wakeups; /* protected by maint_lock: the maintainer's passes */
static uint64_t maint_expired; /* the maintainer's own */

static atomic_int stop;

/* ---- helpers outside any lock ---- */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rng_next(uint64_t *s) { /* xorshift64* */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* "key:<id>" zero-padded to KEY_MAX bytes; returns the length without the padding. */
static size_t format_key(char *key, unsigned id) {
    char digits[12];
    size_t n = 0, len = 4;
    do {
        digits[n++] = (char)('0' + id % 10);
        id /= 10;
    } while (id);
    memset(key, 0, KEY_MAX);
    memcpy(key, "key:", 4);
    while (n)
        key[len++] = digits[--n];
    return len;
}

static uint32_t hash_key(const char *key, size_t n) { /* FNV-1a */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)key[i]) * 16777619u;
    return h;
}

/* A value is value_size / 8 words derived from the key's hash and the stamp of the set that
 * wrote it, so a reader can tell a torn or stale-mixed value from a whole one. */
static uint64_t value_word(uint32_t hv, uint32_t stamp, size_t i) {
    return ((uint64_t)hv << 32 | stamp) * 0x9E3779B97F4A7C15ULL + i;
}

static void fill_value(uint64_t *v, size_t n, uint32_t hv, uint32_t stamp) {
    for (size_t i = 0; i < n / 8; i++)
        v[i] = value_word(hv, stamp, i);
}

static int value_ok(const uint64_t *v, size_t n, uint32_t hv, uint32_t stamp) {
    for (size_t i = 0; i < n / 8; i++)
        if (v[i] != value_word(hv, stamp, i)) return 0;
    return 1;
}

/* ---- the store's internals: called with cache_lock held ---- */

static struct item *hash_find(const char *key, uint32_t hv) {
    struct item *it = hash_table[hv & hash_mask];
    while (it && (it->hv != hv || strncmp(it->key, key, KEY_MAX) != 0))
        it = it->h_next;
    return it;
}

static void hash_remove(struct item *it) {
    struct item **p = &hash_table[it->hv & hash_mask];
    while (*p != it)
        p = &(*p)->h_next;
    *p = it->h_next;
}

static void lru_unlink(struct item *it) {
    if (it->prev)
        it->prev->next = it->next;
    else
        lru_head = it->next;
    if (it->next)
        it->next->prev = it->prev;
    else
        lru_tail = it->prev;
}

static void lru_push_head(struct item *it) {
    it->prev = NULL;
    it->next = lru_head;
    if (lru_head)
        lru_head->prev = it;
    else
        lru_tail = it;
    lru_head = it;
}

static void lru_bump(struct item *it) {
    if (it == lru_head) return;
    lru_unlink(it);
    lru_push_head(it);
}

/* Take an item out of the store and put its slot back on the free list. */
static void item_remove(struct item *it) {
    hash_remove(it);
    lru_unlink(it);
    cstats.removed_hits += it->hits;
    cstats.curr_items--;
    it->h_next = free_list;
    free_list = it;
}

/* ---- the operations ---- */

/* Copies the value of `key` into buf. Returns 1 on a hit, 0 on a miss (absent or expired). */
static int kv_get(const char *key, uint32_t hv, uint64_t now, uint64_t *buf, size_t *len,
                  uint32_t *stamp) {
    pthread_mutex_lock(&cache_lock);
    struct item *it = hash_find(key, hv);
    if (!it) {
        cstats.get_misses++;
        pthread_mutex_unlock(&cache_lock);
        return 0;
    }
    if (it->exptime_ns && it->exptime_ns <= now) {
        item_remove(it);
        cstats.expired++;
        cstats.get_misses++;
        pthread_mutex_unlock(&cache_lock);
        return 0;
    }
    lru_bump(it);
    it->hits++;
    cstats.get_hits++;
    memcpy(buf, it->value, it->nvalue);
    *len = it->nvalue;
    *stamp = it->stamp;
    pthread_mutex_unlock(&cache_lock);
    return 1;
}

/* Stores `value` under `key`, evicting the least recently used item when the pool is full.
 * Returns 1 when an item was evicted. */
static int kv_set(const char *key, uint32_t hv, const uint64_t *value, size_t len, uint32_t stamp,
                  uint64_t exptime) {
    pthread_mutex_lock(&cache_lock);
    struct item *it = hash_find(key, hv);
    if (it) {
        memcpy(it->value, value, len);
        it->nvalue = (uint16_t)len;
        it->stamp = stamp;
        it->exptime_ns = exptime;
        lru_bump(it);
        cstats.replaced++;
        pthread_mutex_unlock(&cache_lock);
        return 0;
    }
    int evicted = 0;
    if (!free_list) {
        item_remove(lru_tail);
        cstats.evictions++;
        evicted = 1;
    }
    it = free_list;
    free_list = it->h_next;
    memcpy(it->key, key, KEY_MAX);
    it->hv = hv;
    it->hits = 0;
    memcpy(it->value, value, len);
    it->nvalue = (uint16_t)len;
    it->stamp = stamp;
    it->exptime_ns = exptime;
    it->h_next = hash_table[hv & hash_mask];
    hash_table[hv & hash_mask] = it;
    lru_push_head(it);
    cstats.curr_items++;
    cstats.inserts++;
    pthread_mutex_unlock(&cache_lock);
    return evicted;
}

/* Deletes `key`. Returns 0 when it was there, -1 when not. Written with the single-exit
 * `goto out` style that many C code bases use for error paths. */
static int kv_delete(const char *key, uint32_t hv) {
    int ret = 0;
    pthread_mutex_lock(&cache_lock);
    struct item *it = hash_find(key, hv);
    if (!it) {
        cstats.delete_misses++;
        ret = -1;
        goto out;
    }
    item_remove(it);
    cstats.deletes++;
out:
    pthread_mutex_unlock(&cache_lock);
    return ret;
}

/* Adds delta to the key's counter and returns the new value. */
static uint64_t kv_incr(unsigned key_id, uint64_t delta) {
    unsigned b = key_id & (NBUCKET_LOCKS - 1);
    uint64_t v;
    pthread_mutex_lock(&bucket_locks[b]);
    v = counters[key_id] += delta;
    bucket_tallies[b].incrs++;
    pthread_mutex_unlock(&bucket_locks[b]);
    return v;
}

/* ---- statistics ---- */

static unsigned hist_index(uint64_t ns) {
    if (ns < (1u << HIST_SUB_BITS)) return (unsigned)ns;
    unsigned e = 63 - (unsigned)__builtin_clzll(ns);
    unsigned sub = (unsigned)(ns >> (e - HIST_SUB_BITS)) & ((1u << HIST_SUB_BITS) - 1);
    return ((e - HIST_SUB_BITS + 1) << HIST_SUB_BITS) + sub;
}

static uint64_t hist_upper_ns(unsigned idx) { /* the largest value that falls in bucket idx */
    if (idx < (1u << HIST_SUB_BITS)) return idx;
    unsigned e = (idx >> HIST_SUB_BITS) + HIST_SUB_BITS - 1;
    uint64_t sub = idx & ((1u << HIST_SUB_BITS) - 1);
    return ((((uint64_t)1 << HIST_SUB_BITS) + sub + 1) << (e - HIST_SUB_BITS)) - 1;
}

static uint64_t hist_percentile(const uint64_t *hist, double p) {
    uint64_t total = 0, seen = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        total += hist[i];
    if (!total) return 0;
    uint64_t rank = (uint64_t)(p / 100.0 * (double)total);
    if (rank >= total) rank = total - 1;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        seen += hist[i];
        if (seen > rank) return hist_upper_ns(i);
    }
    return hist_upper_ns(HIST_BUCKETS - 1);
}

/* ---- workers ---- */

struct worker {
    pthread_t tid;
    int id;
    uint64_t rng;
    /* the worker's own tallies, compared with the store's at exit */
    uint64_t ops, gets, hits, misses, sets, incrs, incr_sum, deletes, delete_hits, evictions;
    uint64_t torn; /* values read back that do not match their stamp */
    uint64_t unfolded[4];
    uint64_t hist[HIST_BUCKETS];
    uint64_t max_ns;
};

static pthread_barrier_t start_barrier;

static void stats_fold(struct worker *w) {
    STATS_LOCK();
    gstats.gets += w->unfolded[0];
    gstats.sets += w->unfolded[1];
    gstats.incrs += w->unfolded[2];
    gstats.deletes += w->unfolded[3];
    gstats.ops += w->unfolded[0] + w->unfolded[1] + w->unfolded[2] + w->unfolded[3];
    STATS_UNLOCK();
    memset(w->unfolded, 0, sizeof w->unfolded);
}

static void stats_merge_histogram(const struct worker *w) {
    STATS_LOCK();
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        gstats.hist[i] += w->hist[i];
    if (w->max_ns > gstats.max_ns) gstats.max_ns = w->max_ns;
    STATS_UNLOCK();
}

static void maint_request(void) {
    pthread_mutex_lock(&maint_lock);
    maint_requested = 1;
    pthread_cond_signal(&maint_cond);
    pthread_mutex_unlock(&maint_lock);
}

static unsigned pick_key(struct worker *w) { /* 90 % of requests go to 10 % of the keys */
    uint64_t r = rng_next(&w->rng);
    unsigned hot = opt.keys / 10 ? opt.keys / 10 : 1;
    if (r % 100 < 90) return (unsigned)((r >> 8) % hot);
    return (unsigned)((r >> 8) % opt.keys);
}

static void *worker_main(void *arg) {
    struct worker *w = arg;
    uint64_t *buf = malloc(opt.value_size);
    uint32_t seq = 0;
    if (!buf) {
        perror("kvstore: malloc");
        exit(2);
    }
    pthread_barrier_wait(&start_barrier);
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        unsigned key_id = pick_key(w);
        char key[KEY_MAX];
        uint32_t hv = hash_key(key, format_key(key, key_id));
        unsigned r = (unsigned)(rng_next(&w->rng) % 100);
        int op = r < opt.mix[0]                             ? 0
                 : r < opt.mix[0] + opt.mix[1]              ? 1
                 : r < opt.mix[0] + opt.mix[1] + opt.mix[2] ? 2
                                                            : 3;
        if (opt.fault_lost_update && w->id == 0 && w->ops == 0) op = 2;
        uint64_t t0 = now_ns();
        if (op == 0) {
            size_t len = 0;
            uint32_t stamp = 0;
            if (kv_get(key, hv, t0, buf, &len, &stamp)) {
                w->hits++;
                if (len != opt.value_size || !value_ok(buf, len, hv, stamp)) w->torn++;
            } else {
                w->misses++;
            }
            w->gets++;
        } else if (op == 1) {
            uint32_t stamp = ((uint32_t)w->id << 24) | (++seq & 0xffffff);
            uint64_t exptime = 0;
            if (rng_next(&w->rng) % 100 < opt.short_ttl_percent)
                exptime = t0 + 1000000u * (20 + rng_next(&w->rng) % 180); /* 20..200 ms */
            fill_value(buf, opt.value_size, hv, stamp);
            if (kv_set(key, hv, buf, opt.value_size, stamp, exptime)) {
                if (++w->evictions % MAINT_EVICTIONS == 0) maint_request();
            }
            w->sets++;
        } else if (op == 2) {
            uint64_t delta = 1 + rng_next(&w->rng) % 3;
            if (opt.fault_lost_update && w->id == 0 && w->ops == 0)
                kv_incr(key_id, 0); /* --inject-fault=lost-update: this increment is lost */
            else
                kv_incr(key_id, delta);
            w->incrs++;
            w->incr_sum += delta;
        } else {
            if (kv_delete(key, hv) == 0) w->delete_hits++;
            w->deletes++;
        }
        uint64_t dt = now_ns() - t0;
        w->hist[hist_index(dt)]++;
        if (dt > w->max_ns) w->max_ns = dt;
        w->unfolded[op]++;
        if (++w->ops % STATS_FOLD_OPS == 0) stats_fold(w);
    }
    stats_fold(w);
    stats_merge_histogram(w);
    free(buf);
    return NULL;
}

/* ---- the maintainer: expires items from the LRU tail when woken ---- */

static void *maintainer_main(void *arg) {
    (void)arg;
    while (!atomic_load(&stop)) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += MAINT_PERIOD_NS;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&maint_lock);
        while (!maint_requested && !atomic_load(&stop)) {
            if (pthread_cond_timedwait(&maint_cond, &maint_lock, &deadline) == ETIMEDOUT) break;
        }
        maint_requested = 0;
        maint_wakeups++;
        pthread_mutex_unlock(&maint_lock);

        uint64_t now = now_ns();
        unsigned expired = 0;
        pthread_mutex_lock(&cache_lock);
        struct item *it = lru_tail;
        for (int n = 0; it && n < MAINT_BATCH; n++) {
            struct item *older = it->prev;
            if (it->exptime_ns && it->exptime_ns <= now) {
                item_remove(it);
                cstats.expired++;
                expired++;
            }
            it = older;
        }
        pthread_mutex_unlock(&cache_lock);
        maint_expired += expired;
    }
    return NULL;
}

/* ---- set-up ---- */

static void store_init(void) {
    uint32_t buckets = 1;
    while (buckets < opt.capacity * 2)
        buckets <<= 1;
    hash_mask = buckets - 1;
    hash_table = calloc(buckets, sizeof *hash_table);
    item_size = (sizeof(struct item) + opt.value_size + 63) & ~(size_t)63;
    item_pool = aligned_alloc(64, item_size * opt.capacity);
    counters = calloc(opt.keys, sizeof *counters);
    if (!hash_table || !item_pool || !counters) {
        fprintf(stderr, "kvstore: out of memory\n");
        exit(2);
    }
    memset(item_pool, 0, item_size * opt.capacity);
    for (unsigned i = opt.capacity; i-- > 0;) {
        struct item *it = (struct item *)(item_pool + i * item_size);
        it->h_next = free_list;
        free_list = it;
    }
    for (int i = 0; i < NBUCKET_LOCKS; i++)
        pthread_mutex_init(&bucket_locks[i], NULL);
}

/* ---- the self-check, run after every thread has been joined ---- */

static int failures;

static void check(int ok, const char *what, unsigned long long a, unsigned long long b) {
    if (ok) return;
    failures++;
    printf("  self-check FAILED: %s (%llu vs %llu)\n", what, a, b);
}

static void self_check(const struct worker *ws, int n) {
    struct worker sum = {0};
    for (int i = 0; i < n; i++) {
        sum.ops += ws[i].ops;
        sum.gets += ws[i].gets;
        sum.hits += ws[i].hits;
        sum.misses += ws[i].misses;
        sum.sets += ws[i].sets;
        sum.incrs += ws[i].incrs;
        sum.incr_sum += ws[i].incr_sum;
        sum.deletes += ws[i].deletes;
        sum.delete_hits += ws[i].delete_hits;
        sum.torn += ws[i].torn;
    }
    /* the structure: hash index, LRU list, free list, item count */
    uint64_t in_hash = 0, in_lru = 0, in_free = 0, live_hits = 0, bad_values = 0;
    for (uint32_t b = 0; b <= hash_mask; b++)
        for (struct item *it = hash_table[b]; it; it = it->h_next) {
            in_hash++;
            live_hits += it->hits;
            if ((it->hv & hash_mask) != b || it->nvalue != opt.value_size ||
                !value_ok(it->value, it->nvalue, it->hv, it->stamp))
                bad_values++;
        }
    struct item *prev = NULL;
    for (struct item *it = lru_head; it && in_lru <= opt.capacity; it = it->next) {
        check(it->prev == prev, "LRU back link", 0, 0);
        prev = it;
        in_lru++;
    }
    check(prev == lru_tail, "LRU tail", 0, 0);
    for (struct item *it = free_list; it && in_free <= opt.capacity; it = it->h_next)
        in_free++;
    check(in_hash == cstats.curr_items, "items in the hash index = item count", in_hash,
          cstats.curr_items);
    check(in_lru == cstats.curr_items, "items on the LRU list = item count", in_lru,
          cstats.curr_items);
    check(in_free + cstats.curr_items == opt.capacity, "free + stored = capacity",
          in_free + cstats.curr_items, opt.capacity);
    check(bad_values == 0, "stored values intact", bad_values, 0);
    check(sum.torn == 0, "values read back intact", sum.torn, 0);
    /* the cache counters against the workers' tallies */
    check(cstats.inserts + cstats.replaced == sum.sets, "sets", cstats.inserts + cstats.replaced,
          sum.sets);
    check(cstats.get_hits == sum.hits, "get hits", cstats.get_hits, sum.hits);
    check(cstats.get_misses == sum.misses, "get misses", cstats.get_misses, sum.misses);
    check(cstats.deletes == sum.delete_hits, "deletes", cstats.deletes, sum.delete_hits);
    check(cstats.deletes + cstats.delete_misses == sum.deletes, "delete requests",
          cstats.deletes + cstats.delete_misses, sum.deletes);
    check(cstats.inserts == cstats.curr_items + cstats.evictions + cstats.expired + cstats.deletes,
          "inserted = stored + evicted + expired + deleted", cstats.inserts,
          cstats.curr_items + cstats.evictions + cstats.expired + cstats.deletes);
    check(live_hits + cstats.removed_hits == cstats.get_hits, "per-item hits add up",
          live_hits + cstats.removed_hits, cstats.get_hits);
    /* the striped counters: no lost increment */
    uint64_t counted = 0, tallied = 0;
    for (unsigned k = 0; k < opt.keys; k++)
        counted += counters[k];
    for (int b = 0; b < NBUCKET_LOCKS; b++)
        tallied += bucket_tallies[b].incrs;
    check(counted == sum.incr_sum, "sum of the counters = sum of the increments", counted,
          sum.incr_sum);
    check(tallied == sum.incrs, "increments per bucket", tallied, sum.incrs);
    /* the global statistics */
    check(gstats.ops == sum.ops, "operations in the global statistics", gstats.ops, sum.ops);
    check(gstats.gets + gstats.sets + gstats.incrs + gstats.deletes == sum.ops,
          "operations by kind", gstats.gets + gstats.sets + gstats.incrs + gstats.deletes, sum.ops);
    uint64_t in_hist = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        in_hist += gstats.hist[i];
    check(in_hist == sum.ops, "latency samples", in_hist, sum.ops);
    if (!failures)
        printf("  self-check     ok: %llu items (hash = LRU = count), %llu hits accounted, "
               "%llu increments none lost, 0 torn values\n",
               (unsigned long long)cstats.curr_items, (unsigned long long)cstats.get_hits,
               (unsigned long long)sum.incrs);
}

/* ---- command line ---- */

static void usage(FILE *f) {
    fprintf(f,
            "usage: kvstore [options]\n"
            "An in-memory key-value cache served by worker threads (get/set/incr/delete on\n"
            "random keys, 90 %% of them on 10 %% of the keys), with a background maintainer.\n"
            "Prints throughput, latency percentiles of one operation, CPU time, a self-check of\n"
            "the store's invariants (exit status 1 when it fails) and an RCL_RESULT JSON line.\n"
            "\n"
            "  -t, --threads N        worker threads (default %d)\n"
            "  -d, --duration SECONDS how long to run (default %g)\n"
            "  -k, --keys N           key space (default %u)\n"
            "  -c, --capacity N       items the store holds before evicting (default %u)\n"
            "  -s, --value-size BYTES bytes per value, a multiple of 8 up to 4096 (default %u)\n"
            "  -m, --mix G,S,I,D      percent of get, set, incr, delete (default %u,%u,%u,%u)\n"
            "      --short-ttl PCT    percent of sets that expire after 20-200 ms (default %u)\n"
            "      --seed N           random seed (default %llu)\n"
            "      --inject-fault lost-update\n"
            "                         drop one increment on purpose: the self-check must fail\n"
            "  -h, --help             this text\n",
            opt.threads, opt.seconds, opt.keys, opt.capacity, opt.value_size, opt.mix[0],
            opt.mix[1], opt.mix[2], opt.mix[3], opt.short_ttl_percent,
            (unsigned long long)opt.seed);
}

static int parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi || *s == '-') return 0;
    *out = v;
    return 1;
}

static void bad_option(const char *name, const char *value, const char *expected) {
    fprintf(stderr, "kvstore: %s %s: expected %s (kvstore --help)\n", name, value, expected);
    exit(2);
}

static void parse_options(int argc, char **argv) {
    static const struct option longopts[] = {{"threads", required_argument, NULL, 't'},
                                             {"duration", required_argument, NULL, 'd'},
                                             {"keys", required_argument, NULL, 'k'},
                                             {"capacity", required_argument, NULL, 'c'},
                                             {"value-size", required_argument, NULL, 's'},
                                             {"mix", required_argument, NULL, 'm'},
                                             {"short-ttl", required_argument, NULL, 'T'},
                                             {"seed", required_argument, NULL, 'S'},
                                             {"inject-fault", required_argument, NULL, 'F'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int c;
    unsigned long v;
    while ((c = getopt_long(argc, argv, "t:d:k:c:s:m:h", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (!parse_uint(optarg, 1, 1024, &v)) bad_option("--threads", optarg, "1..1024");
            opt.threads = (int)v;
            break;
        case 'd': {
            char *end;
            opt.seconds = strtod(optarg, &end);
            if (end == optarg || *end || !(opt.seconds > 0 && opt.seconds <= 3600))
                bad_option("--duration", optarg, "seconds, more than 0 and at most 3600");
            break;
        }
        case 'k':
            if (!parse_uint(optarg, 1, 100000000, &v)) bad_option("--keys", optarg, "1..1e8");
            opt.keys = (unsigned)v;
            break;
        case 'c':
            if (!parse_uint(optarg, 1, 10000000, &v)) bad_option("--capacity", optarg, "1..1e7");
            opt.capacity = (unsigned)v;
            break;
        case 's':
            if (!parse_uint(optarg, 8, 4096, &v) || v % 8)
                bad_option("--value-size", optarg, "a multiple of 8 from 8 to 4096");
            opt.value_size = (unsigned)v;
            break;
        case 'm': {
            unsigned m[4];
            int used = 0;
            if (sscanf(optarg, "%u,%u,%u,%u%n", &m[0], &m[1], &m[2], &m[3], &used) != 4 ||
                optarg[used] || m[0] + m[1] + m[2] + m[3] != 100)
                bad_option("--mix", optarg, "four percentages G,S,I,D adding up to 100");
            memcpy(opt.mix, m, sizeof m);
            break;
        }
        case 'T':
            if (!parse_uint(optarg, 0, 100, &v)) bad_option("--short-ttl", optarg, "0..100");
            opt.short_ttl_percent = (unsigned)v;
            break;
        case 'S':
            if (!parse_uint(optarg, 0, ~0UL, &v)) bad_option("--seed", optarg, "an integer");
            opt.seed = v;
            break;
        case 'F':
            if (strcmp(optarg, "lost-update") != 0)
                bad_option("--inject-fault", optarg, "lost-update");
            opt.fault_lost_update = 1;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            exit(2);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "kvstore: unexpected argument '%s' (kvstore --help)\n", argv[optind]);
        exit(2);
    }
}

static double timeval_s(struct timeval tv) {
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    parse_options(argc, argv);
    store_init();

    struct worker *ws = calloc((size_t)opt.threads, sizeof *ws);
    if (!ws) {
        fprintf(stderr, "kvstore: out of memory\n");
        return 2;
    }
    pthread_barrier_init(&start_barrier, NULL, (unsigned)opt.threads + 1);
    pthread_t maintainer;
    if (pthread_create(&maintainer, NULL, maintainer_main, NULL) != 0) {
        fprintf(stderr, "kvstore: cannot create the maintainer thread\n");
        return 2;
    }
    for (int i = 0; i < opt.threads; i++) {
        ws[i].id = i;
        ws[i].rng = opt.seed * 0x9E3779B97F4A7C15ULL + (uint64_t)i * 0xD1B54A32D192ED03ULL + 1;
        if (pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]) != 0) {
            fprintf(stderr, "kvstore: cannot create worker thread %d\n", i);
            return 2;
        }
    }
    pthread_barrier_wait(&start_barrier);
    uint64_t start = now_ns();
    struct timespec nap = {(time_t)opt.seconds,
                           (long)((opt.seconds - (double)(time_t)opt.seconds) * 1e9)};
    while (nanosleep(&nap, &nap) != 0 && errno == EINTR) {
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < opt.threads; i++)
        pthread_join(ws[i].tid, NULL);
    double wall = (double)(now_ns() - start) / 1e9;
    maint_request();
    pthread_join(maintainer, NULL);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double user = timeval_s(ru.ru_utime), sys = timeval_s(ru.ru_stime);
    uint64_t p50 = hist_percentile(gstats.hist, 50), p99 = hist_percentile(gstats.hist, 99);
    double throughput = (double)gstats.ops / wall;
    uint64_t gets = cstats.get_hits + cstats.get_misses;

    printf("kvstore: %d threads, %.1f s, %u keys, capacity %u items, %u-byte values, "
           "mix get/set/incr/delete %u/%u/%u/%u %%\n",
           opt.threads, wall, opt.keys, opt.capacity, opt.value_size, opt.mix[0], opt.mix[1],
           opt.mix[2], opt.mix[3]);
    printf("  throughput     %.0f ops/s (%llu operations)\n", throughput,
           (unsigned long long)gstats.ops);
    printf("  latency        p50 %.2f us, p99 %.2f us, max %.1f us (one operation)\n", p50 / 1e3,
           p99 / 1e3, gstats.max_ns / 1e3);
    printf("  cpu time       %.2f s (user %.2f, system %.2f) for %.2f s of wall time\n", user + sys,
           user, sys, wall);
    printf("  store          %llu items, hit rate %.1f %%, %llu evictions, %llu expired "
           "(%llu by the maintainer in %llu passes)\n",
           (unsigned long long)cstats.curr_items, gets ? 100.0 * cstats.get_hits / gets : 0.0,
           (unsigned long long)cstats.evictions, (unsigned long long)cstats.expired,
           (unsigned long long)maint_expired, (unsigned long long)maint_wakeups);
    self_check(ws, opt.threads);
    printf("RCL_RESULT {\"program\":\"kvstore\",\"threads\":%d,\"seconds\":%.3f,\"ops\":%llu,"
           "\"throughput_ops_s\":%.1f,\"p50_ns\":%llu,\"p99_ns\":%llu,\"cpu_s\":%.3f,"
           "\"wall_s\":%.3f,\"self_check\":\"%s\",\"self_check_failures\":%d}\n",
           opt.threads, opt.seconds, (unsigned long long)gstats.ops, throughput,
           (unsigned long long)p50, (unsigned long long)p99, user + sys, wall,
           failures ? "failed" : "ok", failures);
    free(ws);
    return failures ? 1 : 0;
}
