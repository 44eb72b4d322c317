/*
 * preempt.c - how much of a server's time went to other threads: the kernel's per-thread
 * scheduler statistics, read for the adaptive policy (is delegation losing because the server
 * waits for its CPU?) and for RCL_STATS (how much of the server's time preemption took).
 *
 * ==========================================================================================
 * THE MEASURE
 * ==========================================================================================
 *
 * /proc/self/task/TID/schedstat (CONFIG_SCHED_INFO, on in distribution kernels) holds the time
 * the thread ran, the time it spent runnable but waiting on a run queue, and its time slices.
 * The second is the time lost to preemption: a polling server thread is always runnable, so
 * every nanosecond it waits there is one in which its CPU ran another thread while the
 * requests posted to it waited too. A lock whose holder is preempted stalls every waiter
 * (FlexGuard, SOSP'25, traces that with eBPF); a server is the holder of all its locks' sections
 * at once, and here the kernel's own accounting says when it is off its CPU. A parked server
 * neither runs nor waits, so idleness is not counted: the share a window reports is
 * waited / (ran + waited), of the time the server wanted its CPU the part it did not get. Beside
 * one busy process of the same niceness on its CPU a polling server gets about half
 * (CFS), so about 500 permille; beside nice-19 jobs it gets nearly all of it.
 * /proc/self/task/TID/status adds the involuntary context switches (RCL_STATS only).
 *
 * Who reads, and when. The adaptive policy asks for the share (rcl_server_preempted) when an
 * epoch of a delegated lock closes (adaptive.c): reading the file costs a few microseconds,
 * so a window lasts RCL_PREEMPT_WINDOW_NS at least and a closer that asks sooner gets the last
 * window's share. The window follows the server's poller (the thread that serves); when the
 * role moved to another servicing thread the window starts again (share 0 until the next one).
 *
 * Who writes which field:
 *   - the window (pre_tid, pre_run, pre_wait, pre_at): only the thread that holds pre_reading
 *     (atomic exchange to 1, acquire; released by a release store of 0), so one reader at a
 *     time, and each one sees its predecessor's window; a closer that finds the flag held does
 *     not wait: it uses the published share;
 *   - the published share (pre_permille): a relaxed atomic, stored by the flag's holder, read
 *     by anyone (a hint: a window late at worst);
 *   - the totals of workers that exited (gone_*): atomic adds by the exiting worker itself
 *     (its structure may already serve a new worker: it reads its own thread's files);
 *     RCL_STATS reads them and the files of the tids in the structures at exit (an exited
 *     thread's files are gone; a worker exiting at that moment may be counted twice or not
 *     at all: a statistic);
 *   - injected_wait (tests only, rcl__server_inject_wait): atomic adds, read with the window.
 * ==========================================================================================
 */
#include "internal.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define RCL_PREEMPT_WINDOW_NS 2000000ull /* 2 ms: a window's shortest length */

/* Read the whole small file `path` into buf (NUL-terminated). false if it cannot be read. */
static bool read_small(const char *path, char *buf, size_t len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    return true;
}

bool rcl_thread_sched(int tid, bool switches, struct rcl_sched *out) {
    char path[64], buf[1536];
    if (tid <= 0) return false;
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
    unsigned long long run, wait;
    if (!read_small(path, buf, sizeof buf) || sscanf(buf, "%llu %llu", &run, &wait) != 2)
        return false;
    out->run_ns = run;
    out->wait_ns = wait;
    out->nivcsw = 0;
    if (switches) {
        snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
        const char *p;
        if (read_small(path, buf, sizeof buf) && (p = strstr(buf, "nonvoluntary_ctxt_switches:")))
            out->nivcsw = strtoull(p + strlen("nonvoluntary_ctxt_switches:"), NULL, 10);
    }
    return true;
}

unsigned rcl_server_preempted(struct rcl_server *s, uint64_t now_ns) {
    unsigned last = atomic_load_explicit(&s->pre_permille, memory_order_relaxed);
    if (now_ns < __atomic_load_n(&s->pre_at, __ATOMIC_RELAXED) + RCL_PREEMPT_WINDOW_NS ||
        atomic_exchange_explicit(&s->pre_reading, 1, memory_order_acquire))
        return last;
    if (now_ns >= s->pre_at + RCL_PREEMPT_WINDOW_NS) { /* (again, holding the flag) */
        struct rcl_worker *w = atomic_load_explicit(&s->poller, memory_order_acquire);
        int tid = w ? atomic_load_explicit(&w->tid, memory_order_relaxed) : 0;
        struct rcl_sched now;
        if (!rcl_thread_sched(tid, false, &now)) tid = 0, now.run_ns = now.wait_ns = 0;
        now.wait_ns += atomic_load_explicit(&s->injected_wait, memory_order_relaxed);
        if (tid && tid == s->pre_tid && now.run_ns >= s->pre_run && now.wait_ns >= s->pre_wait) {
            uint64_t ran = now.run_ns - s->pre_run, waited = now.wait_ns - s->pre_wait;
            last = ran + waited ? (unsigned)(waited * 1000 / (ran + waited)) : 0;
        } else {
            last = 0; /* no window yet for this thread: unknown */
        }
        s->pre_tid = tid;
        s->pre_run = now.run_ns;
        s->pre_wait = now.wait_ns;
        __atomic_store_n(&s->pre_at, now_ns, __ATOMIC_RELAXED);
        atomic_store_explicit(&s->pre_permille, last, memory_order_relaxed);
    }
    atomic_store_explicit(&s->pre_reading, 0, memory_order_release);
    return last;
}

void rcl_worker_retire(struct rcl_server *s) {
    /* Its own thread id, not its structure's: the structure may already serve a new worker. */
    struct rcl_sched me;
    if (rcl_thread_sched((int)syscall(SYS_gettid), false, &me)) {
        struct rusage ru;
        me.nivcsw = getrusage(RUSAGE_THREAD, &ru) == 0 ? (uint64_t)ru.ru_nivcsw : 0;
        atomic_fetch_add_explicit(&s->gone_run, me.run_ns, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->gone_wait, me.wait_ns, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->gone_nivcsw, me.nivcsw, memory_order_relaxed);
    }
}

bool rcl_server_sched_total(struct rcl_server *s, struct rcl_sched *out) {
    out->run_ns = atomic_load_explicit(&s->gone_run, memory_order_relaxed);
    out->wait_ns = atomic_load_explicit(&s->gone_wait, memory_order_relaxed);
    out->nivcsw = atomic_load_explicit(&s->gone_nivcsw, memory_order_relaxed);
    /* Known where the kernel keeps the statistics (the calling thread's own tell), even if
     * no servicing thread has run yet (a short program may exit before its server starts). */
    struct rcl_sched self;
    bool known = rcl_thread_sched((int)syscall(SYS_gettid), false, &self);
    for (struct rcl_worker *w = atomic_load_explicit(&s->all, memory_order_acquire); w;
         w = w->all_next) {
        struct rcl_sched t;
        if (!rcl_thread_sched(atomic_load_explicit(&w->tid, memory_order_relaxed), true, &t))
            continue;
        out->run_ns += t.run_ns;
        out->wait_ns += t.wait_ns;
        out->nivcsw += t.nivcsw;
    }
    return known;
}

void rcl__server_inject_wait(struct rcl_server *s, uint64_t ns) {
    atomic_fetch_add_explicit(&s->injected_wait, ns, memory_order_relaxed);
}
