/*
 * dump.c - the raw dump written when the process ends.
 *
 * startup.c arms it and registers its triggers (exit, the library destructor, fatal signals);
 * the _exit/_Exit wrappers trigger it too. Later triggers write it again with the numbers of
 * that moment. Writing uses only open/write/pwrite/close/readlink on static buffers: it is
 * async-signal-safe and safe in a forked child of a multithreaded parent.
 *
 * File: $RCL_PROF_RAW_DIR/rcl-prof.<pid>.raw (the directory defaults to the working
 * directory at start-up). rcl-prof sets RCL_PROF_RAW_DIR and RCL_PROF_PARENT (its own pid):
 * then a process that is not rcl-prof's direct child (a forked child, an exec'd helper) writes
 * its file only if it locked something, so fork-heavy programs do not litter the directory.
 */
#include "prof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Atomic int armed; /* the tables exist: there is something to write */
static char raw_dir[3072];
static long root_parent = -1; /* RCL_PROF_PARENT, -1 when unset */
static _Atomic int dumping;

void prof_dump_arm(void) {
    const char *dir = getenv("RCL_PROF_RAW_DIR");
    if (dir && *dir && strlen(dir) < sizeof raw_dir)
        strcpy(raw_dir, dir);
    else if (!getcwd(raw_dir, sizeof raw_dir))
        strcpy(raw_dir, ".");
    const char *parent = getenv("RCL_PROF_PARENT");
    if (parent && *parent) root_parent = strtol(parent, NULL, 10);
    atomic_store_explicit(&armed, 1, memory_order_release); /* pairs: prof_dump */
}

void prof_dump_after_fork(void) {
    atomic_store(&dumping, 0);
}

/* ---- the writer: async-signal-safe ---- */

static int write_all(int fd, const void *buf, size_t len) {
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static char *append_decimal(char *p, long v) {
    char digits[24];
    int n = 0;
    if (v < 0) {
        *p++ = '-';
        v = -v;
    }
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) && n < 23);
    while (n)
        *p++ = digits[--n];
    return p;
}

static int record_worth_writing(const struct lock_record *r, uint64_t i) {
    if (r->address == 0 && i != 1) return 0;
    return atomic_load_explicit(&r->acquisitions, memory_order_relaxed) ||
           atomic_load_explicit(&r->trylock_failures, memory_order_relaxed) ||
           atomic_load_explicit(&r->timeouts, memory_order_relaxed);
}

#define BATCH 1024 /* records per window: 384 KiB of static buffer */
static struct lock_record batch[BATCH];
static char exe_path[4096];
static char maps_chunk[65536];

void prof_dump(int reason, int sig) {
    if (!atomic_load_explicit(&armed, memory_order_acquire)) return;
    if (atomic_exchange(&dumping, 1))
        return; /* another thread (or a signal on this one) is writing it */
    struct raw_header h;
    memset(&h, 0, sizeof h);
    h.end_ticks = prof_ticks();
    h.end_ns = prof_now_ns();

    /* a process that is not rcl-prof's child and never locked anything leaves no file */
    uint64_t end = prof_table_records_end();
    const struct lock_record *records = prof_table_record(0);
    int locked = end > 2 || atomic_load_explicit(&records[1].acquisitions, memory_order_relaxed);
    pid_t pid = getpid();
    if (root_parent >= 0 && !locked && getppid() != root_parent) goto out;

    char path[sizeof raw_dir + 64], *p = path;
    size_t dlen = strlen(raw_dir);
    memcpy(p, raw_dir, dlen);
    p += dlen;
    memcpy(p, "/rcl-prof.", 10);
    p = append_decimal(p + 10, pid);
    memcpy(p, ".raw", 5);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) goto out;

    memcpy(h.magic, RCL_PROF_RAW_MAGIC, 8);
    h.version = RCL_PROF_RAW_VERSION;
    h.header_size = sizeof h;
    h.record_size = sizeof(struct lock_record);
    h.sites_per_record = PROF_SITES;
    h.pid = pid;
    h.ppid = getppid();
    h.start_ticks = prof_start_ticks;
    h.start_ns = prof_start_ns;
    h.thread_ticks = prof_thread_ticks(h.end_ticks);
    h.threads_started = prof_threads_started();
    h.locks_untracked = atomic_load(&prof_locks_untracked);
    h.holds_untracked = atomic_load(&prof_holds_untracked);
    h.hw_counters = atomic_load(&prof_hw_state) == 1;
    h.hw_errno = prof_hw_errno;
    h.nkinds = prof_nkinds;
    h.dump_reason = reason;
    h.counter_event = prof_counter_event;
    h.count_every = (int32_t)prof_count_every;
    h.signal = sig;
    memcpy(h.kind_names, prof_kind_names, sizeof h.kind_names);
    ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    h.exe_len = n > 0 ? (int32_t)n : 0;

    int ok = write_all(fd, &h, sizeof h) == 0 && write_all(fd, exe_path, (size_t)h.exe_len) == 0;
    int maps = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    while (ok && maps >= 0) {
        ssize_t got = read(maps, maps_chunk, sizeof maps_chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        ok = write_all(fd, maps_chunk, (size_t)got) == 0;
        h.maps_len += (uint64_t)got;
    }
    if (maps >= 0) close(maps);

    /* window by window: the shared records plus every thread's cached counts, then the
     * ones worth writing, compacted in place */
    uint64_t written = 0;
    for (uint64_t lo = 1; ok && lo < end; lo += BATCH) {
        uint64_t hi = end - lo < BATCH ? end : lo + BATCH;
        memcpy(batch, &records[lo], (size_t)(hi - lo) * sizeof batch[0]);
        prof_tcache_merge_into(batch, lo, hi);
        size_t kept = 0;
        for (uint64_t i = lo; i < hi; i++)
            if (record_worth_writing(&batch[i - lo], i))
                memmove(&batch[kept++], &batch[i - lo], sizeof batch[0]);
        ok = write_all(fd, batch, kept * sizeof batch[0]) == 0;
        written += kept;
    }
    h.nrecords = written;
    if (ok) /* the final lengths */
        ok = pwrite(fd, &h, sizeof h, 0) == (ssize_t)sizeof h;
    close(fd);
out:
    atomic_store(&dumping, 0);
}
