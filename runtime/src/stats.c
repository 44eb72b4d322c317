/*
 * stats.c - RCL_STATS: what each server did, printed when the process exits.
 *
 * RCL_STATS=1 prints a few lines on stderr; RCL_STATS=json:FILE writes one JSON object to FILE
 * (written to FILE.tmp, then renamed). The counters are the servers' own statistics (internal.h),
 * read with relaxed loads: a statistic, not a synchronisation.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

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
    fprintf(f, "{\"mode\": \"%s\", \"servers\": [", mode_name());
    for (int i = 0; i < rcl_rt.nservers; i++) {
        struct rcl_server *s = &rcl_rt.servers[i];
        fprintf(
            f,
            "%s\n  {\"index\": %d, \"cpu\": %d, \"served\": %llu, \"parks\": %llu, "
            "\"servicing_threads\": %u, \"condition_waits\": %llu, \"detected_blocking\": %llu, "
            "\"pool_exhausted\": %llu, \"cancelled\": %llu, \"local_waits\": %llu, "
            "\"run_by_caller\": "
            "{\"no_servicing_thread\": %llu, \"caller_holds_mutex\": %llu, \"robust\": %llu, "
            "\"trylock_error\": %llu}}",
            i ? "," : "", s->index, s->cpu, (unsigned long long)get(&s->served),
            (unsigned long long)get(&s->parks),
            atomic_load_explicit(&s->nworkers, memory_order_relaxed),
            (unsigned long long)get(&s->handovers), (unsigned long long)get(&s->detected),
            (unsigned long long)get(&s->exhausted), (unsigned long long)get(&s->cancelled),
            (unsigned long long)get(&s->local_waits), (unsigned long long)get(&s->back_exhausted),
            (unsigned long long)get(&s->back_owner), (unsigned long long)get(&s->back_robust),
            (unsigned long long)get(&s->back_error));
    }
    fprintf(f, "\n], \"locks\": [");
    rcl_adaptive_report(f, true);
    fprintf(f, "\n]}\n");
}

static void at_exit(void) {
    if (rcl_rt.cfg.stats == RCL_STATS_TEXT) {
        print_text(stderr);
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
