/*
 * threads.c - what the profiler knows about threads: their summed lifetime (the denominator
 * of "% time in critical sections"), their hardware cache-miss counter, and core kinds.
 *
 * Lifetime, without a registry: every thread created with pthread_create runs through
 * thread_trampoline, which adds its start time to live_start_sum and 1 to live_count; a
 * pthread key destructor (it runs on return and on pthread_exit) moves the thread's
 * (end - start) into dead_ticks. At any moment the summed lifetime is
 *     dead_ticks + live_count * now - live_start_sum + (now - main_start)
 * (unsigned arithmetic: the intermediate values may wrap, the result does not). A forked
 * child starts a new epoch: threads registered before the fork do not exist there.
 *
 * Cache misses: one perf_event_open(PERF_COUNT_HW_CACHE_MISSES, this thread, any CPU,
 * user space only) per thread, opened on the thread's first acquisition and read with read(2)
 * at acquire and release. When the first open fails (no PMU, e.g. in most VMs: ENOENT or
 * EOPNOTSUPP; perf_event_paranoid: EACCES), no thread tries again and the report says n/a.
 */
#include "prof.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

PROF_HIDDEN __thread struct thread_state prof_thread __attribute__((tls_model("initial-exec")));
PROF_HIDDEN _Atomic uint64_t prof_holds_untracked;

static _Atomic unsigned epoch;
static _Atomic uint64_t live_count, live_start_sum, dead_ticks, started;
static uint64_t main_start;
static pthread_key_t exit_key;

PROF_HIDDEN _Atomic int prof_hw_state = -1;
PROF_HIDDEN int prof_hw_errno;

PROF_HIDDEN uint32_t prof_sample_period = 16;
PROF_HIDDEN uint32_t prof_count_every = 1;
PROF_HIDDEN int prof_nkinds = 1;
PROF_HIDDEN unsigned char prof_cpu_kind[1024];
PROF_HIDDEN char prof_kind_names[PROF_KINDS][16];

static void close_counter(struct thread_state *t) {
    if (t->perf_fd1 > 0) close(t->perf_fd1 - 1);
    t->perf_fd1 = -1;
}

static void thread_exited(void *unused) {
    (void)unused;
    struct thread_state *t = &prof_thread;
    if (t->registered && t->epoch == atomic_load_explicit(&epoch, memory_order_relaxed)) {
        uint64_t lifetime = prof_ticks() - t->start_ticks;
        atomic_fetch_sub_explicit(&live_count, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&live_start_sum, t->start_ticks, memory_order_relaxed);
        atomic_fetch_add_explicit(&dead_ticks, lifetime, memory_order_relaxed);
    }
    t->registered = 0;
    prof_tcache_detach(t);
    close_counter(t);
}

void prof_thread_started(void) {
    struct thread_state *t = &prof_thread;
    t->start_ticks = prof_ticks();
    t->epoch = atomic_load_explicit(&epoch, memory_order_relaxed);
    t->registered = 1;
    atomic_fetch_add_explicit(&live_count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&live_start_sum, t->start_ticks, memory_order_relaxed);
    atomic_fetch_add_explicit(&started, 1, memory_order_relaxed);
    pthread_setspecific(exit_key, (void *)1);
}

/* RCL server threads leave the denominator: their time is the runtime's, not the program's. */
void prof_thread_is_server(void) {
    struct thread_state *t = &prof_thread;
    t->is_server = 1;
    t->classified = 1;
    prof_thread_recheck(t);
    if (t->registered && t->epoch == atomic_load_explicit(&epoch, memory_order_relaxed)) {
        atomic_fetch_sub_explicit(&live_count, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&live_start_sum, t->start_ticks, memory_order_relaxed);
        atomic_fetch_sub_explicit(&started, 1, memory_order_relaxed);
    }
    t->registered = 0;
}

uint64_t prof_thread_ticks(uint64_t now) {
    uint64_t n = atomic_load_explicit(&live_count, memory_order_relaxed);
    uint64_t sum = atomic_load_explicit(&live_start_sum, memory_order_relaxed);
    return atomic_load_explicit(&dead_ticks, memory_order_relaxed) + n * now - sum +
           (now - main_start);
}

uint64_t prof_threads_started(void) {
    return atomic_load_explicit(&started, memory_order_relaxed);
}

/* ---- hardware counters ---- */

/* RCL_PROF_COUNTER_EVENT=task-clock counts the thread's CPU time (ns) instead of cache misses:
 * a software event every Linux has, so the counter path can be tested on machines without a
 * PMU (test/profiler/counter_path.c). */
PROF_HIDDEN int prof_counter_event = COUNTER_CACHE_MISSES;

static int open_counter(void) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    if (prof_counter_event == COUNTER_TASK_CLOCK) {
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_TASK_CLOCK;
    } else {
        attr.type = PERF_TYPE_HARDWARE;
        attr.config = PERF_COUNT_HW_CACHE_MISSES;
    }
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &attr, 0 /* this thread */, -1 /* any cpu */,
                        -1 /* no group */, PERF_FLAG_FD_CLOEXEC);
}

static void probe_counters(void) {
    const char *event = getenv("RCL_PROF_COUNTER_EVENT");
    if (event && strcmp(event, "task-clock") == 0) prof_counter_event = COUNTER_TASK_CLOCK;
    const char *env = getenv("RCL_PROF_COUNTERS");
    if (env && strcmp(env, "0") == 0) {
        prof_hw_errno = 0;
        atomic_store(&prof_hw_state, 0);
        return;
    }
    int fd = open_counter();
    if (fd < 0) {
        prof_hw_errno = errno;
        atomic_store(&prof_hw_state, 0);
        return;
    }
    prof_thread.perf_fd1 = fd + 1;
    atomic_store(&prof_hw_state, 1);
}

uint64_t prof_read_misses(void) {
    struct thread_state *t = &prof_thread;
    if (PROF_UNLIKELY(t->perf_fd1 == 0)) {
        int fd = open_counter();
        t->perf_fd1 = fd < 0 ? -1 : fd + 1;
    }
    uint64_t v = 0;
    if (t->perf_fd1 > 0 && read(t->perf_fd1 - 1, &v, sizeof v) != (ssize_t)sizeof v) v = 0;
    return v;
}

/* ---- core kinds ---- */

static int read_small_file(const char *path, char *buf, size_t len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n < 0) return -1;
    buf[n] = '\0';
    return 0;
}

/* "0-5,7" -> marks kind k for those cpus; returns how many cpus it named. */
static int mark_cpu_list(const char *s, int kind) {
    int count = 0;
    while (*s && *s != ';' && *s != '\n') {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s) return count;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            s = end;
        }
        for (long c = a; c <= b && c >= 0 && c < 1024; c++, count++)
            prof_cpu_kind[c] = (unsigned char)kind;
        if (*s == ',') s++;
    }
    return count;
}

static void set_kind_name(int k, const char *name, size_t len) {
    if (len >= sizeof prof_kind_names[k]) len = sizeof prof_kind_names[k] - 1;
    memcpy(prof_kind_names[k], name, len);
    prof_kind_names[k][len] = '\0';
}

/* RCL_CPU_KINDS="little=0-5;big=6-7": the runtime's emulation of an asymmetric machine. */
static int kinds_from_env(void) {
    const char *s = getenv("RCL_CPU_KINDS");
    if (!s || !*s) return 0;
    int k = 0;
    while (*s && k < PROF_KINDS) {
        const char *eq = strchr(s, '=');
        if (!eq) break;
        set_kind_name(k, s, (size_t)(eq - s));
        mark_cpu_list(eq + 1, k);
        k++;
        const char *semi = strchr(eq, ';');
        if (!semi) break;
        s = semi + 1;
    }
    return k;
}

/* Intel hybrid parts list their P and E cores under /sys/devices/cpu_{atom,core}/cpus. */
static int kinds_from_sysfs(void) {
    char buf[512];
    if (read_small_file("/sys/devices/cpu_atom/cpus", buf, sizeof buf) != 0) return 0;
    set_kind_name(0, "atom", 4);
    mark_cpu_list(buf, 0);
    if (read_small_file("/sys/devices/cpu_core/cpus", buf, sizeof buf) != 0) return 1;
    set_kind_name(1, "core", 4);
    mark_cpu_list(buf, 1);
    return 2;
}

void prof_threads_init(void) {
    main_start = prof_start_ticks; /* the main thread's lifetime is the whole profiled run */
    const char *sample = getenv("RCL_PROF_SAMPLE"); /* 1: time every critical section */
    if (sample && *sample) {
        long v = strtol(sample, NULL, 10);
        if (v >= 1 && v <= 1 << 20) prof_sample_period = (uint32_t)v;
    }
    const char *every = getenv("RCL_PROF_COUNT_EVERY"); /* N > 1: record one lock call in N */
    if (every && *every) {
        long v = strtol(every, NULL, 10);
        if (v >= 1 && v <= 1 << 20) prof_count_every = (uint32_t)v;
    }
    pthread_key_create(&exit_key, thread_exited);
    int k = kinds_from_env();
    if (k == 0) k = kinds_from_sysfs();
    prof_nkinds = k > 1 ? k : 1;
    if (prof_nkinds == 1) {
        memset(prof_cpu_kind, 0, sizeof prof_cpu_kind);
        strcpy(prof_kind_names[0], "all");
    }
    probe_counters();
}

/* The forking thread is the child's only thread; it plays the main thread from now on. */
void prof_threads_after_fork(void) {
    struct thread_state *t = &prof_thread;
    atomic_fetch_add_explicit(&epoch, 1, memory_order_relaxed);
    atomic_store_explicit(&live_count, 0, memory_order_relaxed);
    atomic_store_explicit(&live_start_sum, 0, memory_order_relaxed);
    atomic_store_explicit(&dead_ticks, 0, memory_order_relaxed);
    atomic_store_explicit(&started, 0, memory_order_relaxed);
    main_start = prof_ticks();
    prof_start_ticks = main_start;
    prof_start_ns = prof_now_ns();
    t->registered = 0;
    t->nheld = 0;
    t->tc = NULL; /* the pool was remapped: prof_tcache_reset_after_fork */
    t->tc_refused = 0;
    t->deleg_lock = NULL;
    prof_thread_recheck(t);
    /* a counter opened by the parent counts the parent's thread: open our own */
    if (t->perf_fd1 > 0) close(t->perf_fd1 - 1);
    t->perf_fd1 = atomic_load(&prof_hw_state) == 1 ? 0 : -1;
}
