/*
 * stats.c - RCL_STATS: what each server did, and in adaptive mode each lock, printed when the
 * process exits.
 *
 * RCL_STATS=1 prints a few lines on the stderr the program started with; RCL_STATS=json:FILE
 * writes one JSON object to FILE (schema "rcl-stats/1", docs/runtime.md; written to FILE.tmp,
 * then renamed). The counters are the servers' own statistics (internal.h) and the adaptive
 * table's, read with relaxed loads: a statistic, not a synchronisation.
 *
 * The stderr the program started with: a program may close its stderr before it exits (xz's
 * tuklib_exit fcloses it to catch write errors), and the atexit handler runs after that. So when
 * librcl is loaded (a constructor, before main) with RCL_STATS=1, descriptor 2 is duplicated to a
 * close-on-exec descriptor at or above 100 (out of the way of programs that count on their low
 * descriptors), and its identity (device, inode) kept; at exit the text goes there if the
 * descriptor still is that file (a program may close every descriptor and reuse the number:
 * then descriptor 2, if open), built in memory and written at once, never through stdio's
 * stderr.
 */
#include "internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RCL_STATS_SCHEMA "rcl-stats/1"
#define RCL_STATS_FD_MIN 100

static int kept_fd = -1;
static struct stat kept_st;

/* Runs when librcl is loaded: the environment is the program's (config.c reads it again at
 * start-up; RCL_STATS=1 is its text setting). */
__attribute__((constructor)) static void keep_stderr(void) {
    const char *v = getenv("RCL_STATS");
    if (!v || strcmp(v, "1")) return;
    int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, RCL_STATS_FD_MIN);
    if (fd < 0) fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3); /* a low RLIMIT_NOFILE */
    if (fd < 0) return;
    if (fstat(fd, &kept_st) != 0) {
        close(fd);
        return;
    }
    kept_fd = fd;
}

/* The descriptor the text goes to: the kept one while it is still the same file. */
static int text_fd(void) {
    struct stat st;
    if (kept_fd >= 0 && fstat(kept_fd, &st) == 0 && st.st_dev == kept_st.st_dev &&
        st.st_ino == kept_st.st_ino)
        return kept_fd;
    return STDERR_FILENO;
}

static void write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) return; /* nowhere to write: a statistic is not worth more */
        p += w, n -= (size_t)w;
    }
}

static uint64_t get(_Atomic uint64_t *c) {
    return atomic_load_explicit(c, memory_order_relaxed);
}

static const char *mode_name(void) {
    return rcl_rt.cfg.mode == RCL_MODE_LOCAL      ? "local"
           : rcl_rt.cfg.mode == RCL_MODE_ADAPTIVE ? "adaptive"
                                                  : "delegate";
}

static void print_text(FILE *f) {
    fprintf(f, "rcl: mode %s\n", mode_name());
    rcl_adaptive_report(f, false);
    for (int i = 0; i < rcl_rt.nservers; i++) {
        struct rcl_server *s = &rcl_rt.servers[i];
        uint64_t back = get(&s->back_owner) + get(&s->back_robust) + get(&s->back_error) +
                        get(&s->back_exhausted);
        fprintf(
            f,
            "rcl: server %d (cpu %d): %llu sections served, %llu parks, %u servicing threads; "
            "blocked sections: %llu condition waits, %llu detected, %llu with no servicing "
            "thread left, %llu abandoned for cancelled callers, %llu waited for a local holder\n",
            s->index, s->cpu, (unsigned long long)get(&s->served),
            (unsigned long long)get(&s->parks),
            atomic_load_explicit(&s->nworkers, memory_order_relaxed),
            (unsigned long long)get(&s->handovers), (unsigned long long)get(&s->detected),
            (unsigned long long)get(&s->exhausted), (unsigned long long)get(&s->cancelled),
            (unsigned long long)get(&s->local_waits));
        struct rcl_sched t;
        if (rcl_rt.cfg.mode != RCL_MODE_LOCAL) {
            if (rcl_server_sched_total(s, &t))
                fprintf(f,
                        "rcl: server %d: preempted %.3f s of the %.3f s its servicing threads "
                        "wanted their CPU (%.1f %%), %llu involuntary context switches\n",
                        s->index, (double)t.wait_ns / 1e9, (double)(t.run_ns + t.wait_ns) / 1e9,
                        t.run_ns + t.wait_ns
                            ? 100.0 * (double)t.wait_ns / (double)(t.run_ns + t.wait_ns)
                            : 0.0,
                        (unsigned long long)t.nivcsw);
            else
                fprintf(f,
                        "rcl: server %d: time lost to preemption unknown (no "
                        "/proc/self/task/*/schedstat)\n",
                        s->index);
        }
        if (get(&s->as_caller) || get(&s->caller_here))
            fprintf(f,
                    "rcl: server %d: sections that use their caller's thread state: %llu run as "
                    "their caller, %llu in their caller (not available here)\n",
                    s->index, (unsigned long long)get(&s->as_caller),
                    (unsigned long long)get(&s->caller_here));
        if (get(&s->timed))
            fprintf(f, "rcl: server %d: timed lock calls: %llu, %llu of them timed out\n", s->index,
                    (unsigned long long)get(&s->timed), (unsigned long long)get(&s->timed_out));
        if (back)
            fprintf(f,
                    "rcl: server %d: run by their callers: %llu (no servicing thread left %llu, "
                    "caller held the mutex %llu, robust mutex %llu, trylock error %llu)\n",
                    s->index, (unsigned long long)back, (unsigned long long)get(&s->back_exhausted),
                    (unsigned long long)get(&s->back_owner),
                    (unsigned long long)get(&s->back_robust),
                    (unsigned long long)get(&s->back_error));
    }
}

static void print_json(FILE *f) {
    fprintf(f, "{\"schema\": \"%s\", \"mode\": \"%s\", \"servers\": [", RCL_STATS_SCHEMA,
            mode_name());
    for (int i = 0; i < rcl_rt.nservers; i++) {
        struct rcl_server *s = &rcl_rt.servers[i];
        struct rcl_sched t;
        char sched[160] = "null, \"preempted_ns\": null, \"involuntary_switches\": null";
        if (rcl_rt.cfg.mode != RCL_MODE_LOCAL && rcl_server_sched_total(s, &t))
            snprintf(sched, sizeof sched,
                     "%llu, \"preempted_ns\": %llu, \"involuntary_switches\": %llu",
                     (unsigned long long)t.run_ns, (unsigned long long)t.wait_ns,
                     (unsigned long long)t.nivcsw);
        fprintf(
            f,
            "%s\n  {\"index\": %d, \"cpu\": %d, \"served\": %llu, \"parks\": %llu, "
            "\"servicing_threads\": %u, \"condition_waits\": %llu, \"detected_blocking\": %llu, "
            "\"pool_exhausted\": %llu, \"cancelled\": %llu, \"local_waits\": %llu, "
            "\"as_caller\": %llu, \"as_caller_in_caller\": %llu, \"run_by_caller\": "
            "{\"no_servicing_thread\": %llu, \"caller_holds_mutex\": %llu, \"robust\": %llu, "
            "\"trylock_error\": %llu}, \"timed\": %llu, \"timed_out\": %llu, \"ran_ns\": %s}",
            i ? "," : "", s->index, s->cpu, (unsigned long long)get(&s->served),
            (unsigned long long)get(&s->parks),
            atomic_load_explicit(&s->nworkers, memory_order_relaxed),
            (unsigned long long)get(&s->handovers), (unsigned long long)get(&s->detected),
            (unsigned long long)get(&s->exhausted), (unsigned long long)get(&s->cancelled),
            (unsigned long long)get(&s->local_waits), (unsigned long long)get(&s->as_caller),
            (unsigned long long)get(&s->caller_here), (unsigned long long)get(&s->back_exhausted),
            (unsigned long long)get(&s->back_owner), (unsigned long long)get(&s->back_robust),
            (unsigned long long)get(&s->back_error), (unsigned long long)get(&s->timed),
            (unsigned long long)get(&s->timed_out), sched);
    }
    fprintf(f, "\n], \"locks\": [");
    rcl_adaptive_report(f, true);
    fprintf(f, "\n]}\n");
}

static void at_exit(void) {
    rcl_own_code = 1; /* it allocates (delegate.c, "The program's allocator"); the process ends */
    if (rcl_rt.cfg.stats == RCL_STATS_TEXT) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (!m) return;
        print_text(m);
        if (fclose(m) == 0) write_all(text_fd(), text, len);
        free(text);
        return;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", rcl_rt.cfg.stats_file);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        rcl_warn("RCL_STATS: cannot write %s", tmp);
        return;
    }
    print_json(f);
    if (fclose(f) != 0 || rename(tmp, rcl_rt.cfg.stats_file) != 0)
        rcl_warn("RCL_STATS: cannot write %s", rcl_rt.cfg.stats_file);
}

void rcl_stats_register(void) {
    if (rcl_rt.cfg.stats != RCL_STATS_OFF) atexit(at_exit);
}
