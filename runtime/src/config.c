/*
 * config.c - the runtime's settings, read once from the environment.
 *
 * Every variable is optional. A malformed value is never silently ignored: one line on
 * stderr names the variable, the value, what it accepts and the default that is used.
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void vwarn(const char *fmt, va_list ap) {
    char buf[512];
    int n = snprintf(buf, sizeof buf, "rcl: ");
    n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, (size_t)n); /* one write: lines never interleave */
    (void)w;
}

void rcl_warn(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vwarn(fmt, ap);
    va_end(ap);
}

void rcl_die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vwarn(fmt, ap);
    va_end(ap);
    abort();
}

/* Parse a whole decimal integer in [lo, hi]. */
static bool parse_long(const char *s, long lo, long hi, long *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static void load_mode(struct rcl_config *cfg) {
    const char *v = getenv("RCL_MODE");
    if (!v) return;
    if (!strcmp(v, "delegate"))
        cfg->mode = RCL_MODE_DELEGATE;
    else if (!strcmp(v, "local"))
        cfg->mode = RCL_MODE_LOCAL;
    else if (!strcmp(v, "adaptive"))
        cfg->mode = RCL_MODE_ADAPTIVE;
    else
        rcl_warn("RCL_MODE=%s: expected 'adaptive', 'delegate' or 'local'; using adaptive", v);
}

static void load_int(const char *name, long lo, long hi, long *dst, const char *unit) {
    const char *v = getenv(name);
    long x;
    if (!v) return;
    if (parse_long(v, lo, hi, &x))
        *dst = x;
    else
        rcl_warn("%s=%s: expected an integer from %ld to %ld%s; using %ld", name, v, lo, hi, unit,
                 *dst);
}

/* "3" or "2,3,5": a comma-separated list of distinct CPU numbers. Existence is checked against
 * the topology in placement.c. */
static void load_server_cpus(struct rcl_config *cfg) {
    const char *v = getenv("RCL_SERVER_CPUS");
    if (!v) return;
    int cpus[RCL_MAX_SERVERS], n = 0;
    const char *p = v;
    while (*p) {
        char *end;
        errno = 0;
        long c = strtol(p, &end, 10);
        if (end == p || errno || c < 0 || c > 65535 || (*end && *end != ',') ||
            n == RCL_MAX_SERVERS)
            goto bad;
        for (int i = 0; i < n; i++)
            if (cpus[i] == c) goto bad;
        cpus[n++] = (int)c;
        p = *end ? end + 1 : end;
        if (*end && !*p) goto bad;
    }
    if (n == 0) goto bad;
    memcpy(cfg->server_cpus, cpus, sizeof(int) * (size_t)n);
    cfg->nserver_cpus = n;
    return;
bad:
    rcl_warn("RCL_SERVER_CPUS=%s: expected a comma-separated list of distinct CPU numbers, "
             "e.g. '3' or '2,3'; choosing server CPUs from the topology",
             v);
}

static void load_affinity(struct rcl_config *cfg) {
    const char *v = getenv("RCL_CLIENT_AFFINITY");
    if (!v) return;
    if (!strcmp(v, "exclude"))
        cfg->client_affinity = RCL_AFFINITY_EXCLUDE;
    else if (!strcmp(v, "any"))
        cfg->client_affinity = RCL_AFFINITY_ANY;
    else if (!strcmp(v, "auto"))
        cfg->client_affinity = RCL_AFFINITY_AUTO;
    else
        rcl_warn("RCL_CLIENT_AFFINITY=%s: expected 'auto', 'exclude' or 'any'; using auto", v);
}

/* RCL_CLIENT_WAIT=aware (default) or spin: the waiting of delegate.c's client_wait before it
 * knew its core (kept for side-by-side comparisons, docs/results.md). */
static void load_client_wait(struct rcl_config *cfg) {
    const char *v = getenv("RCL_CLIENT_WAIT");
    if (!v) return;
    if (!strcmp(v, "spin"))
        cfg->wait_spin_only = true;
    else if (strcmp(v, "aware"))
        rcl_warn("RCL_CLIENT_WAIT=%s: expected 'aware' or 'spin'; using aware", v);
}

/* RCL_STATS=1 (text on stderr at exit) or json:FILE. */
static void load_stats(struct rcl_config *cfg) {
    const char *v = getenv("RCL_STATS");
    if (!v || !strcmp(v, "0")) return;
    if (!strcmp(v, "1"))
        cfg->stats = RCL_STATS_TEXT;
    else if (!strncmp(v, "json:", 5) && v[5]) {
        cfg->stats = RCL_STATS_JSON;
        cfg->stats_file = v + 5;
    } else
        rcl_warn("RCL_STATS=%s: expected '1' (text on stderr at exit) or 'json:FILE'; "
                 "no statistics",
                 v);
}

void rcl_config_load(struct rcl_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    /* adaptive: per lock, whichever of the two paths is measured cheaper (adaptive.c); a converted
     * program that delegation would slow down runs as the original did */
    cfg->mode = RCL_MODE_ADAPTIVE;
    cfg->client_affinity = RCL_AFFINITY_AUTO;
    long nservers = 1, spin = 20000, server_spin = 100000;
    long pool_max = 64, pool_spare = 1, pool_idle_ms = 1000, detect_us = 500, flip = 0;
    long local_wait_us = 1000, as_caller = 1;

    load_mode(cfg);
    load_int("RCL_SERVERS", 1, RCL_MAX_SERVERS, &nservers, "");
    load_int("RCL_SPIN_NS", 0, 1000000000L, &spin, " (nanoseconds)");
    load_int("RCL_SERVER_SPIN_NS", 0, 1000000000L, &server_spin, " (nanoseconds)");
    load_int("RCL_POOL_MAX", 1, RCL_POOL_LIMIT, &pool_max, " (servicing threads per server)");
    load_int("RCL_POOL_SPARE", 0, RCL_POOL_LIMIT, &pool_spare, " (idle spares kept)");
    load_int("RCL_POOL_IDLE_MS", 1, 3600000, &pool_idle_ms, " (milliseconds)");
    load_int("RCL_BLOCK_DETECT_US", 0, 1000000, &detect_us, " (microseconds; 0 disables)");
    load_int("RCL_LOCAL_WAIT_US", 1, 10000000, &local_wait_us, " (microseconds)");
    load_int("RCL_ADAPTIVE_FLIP", 0, 1000000, &flip, " (test knob: calls between flips)");
    load_int("RCL_AS_CALLER", 0, 1, &as_caller,
             " (0: sections that use their caller's state run in it)");
    load_server_cpus(cfg);
    load_affinity(cfg);
    load_client_wait(cfg);
    load_stats(cfg);
    cfg->cpu_kinds = getenv("RCL_CPU_KINDS");
    cfg->lock_servers = getenv("RCL_LOCK_SERVERS");
    cfg->adaptive_log = getenv("RCL_ADAPTIVE_LOG");
    if (cfg->adaptive_log && !cfg->adaptive_log[0]) cfg->adaptive_log = NULL;

    cfg->nservers = (int)nservers;
    if (cfg->nserver_cpus && getenv("RCL_SERVERS") && cfg->nserver_cpus != cfg->nservers)
        rcl_warn("RCL_SERVERS=%d but RCL_SERVER_CPUS lists %d CPUs; using %d servers, one per "
                 "listed CPU",
                 cfg->nservers, cfg->nserver_cpus, cfg->nserver_cpus);
    if (cfg->nserver_cpus) cfg->nservers = cfg->nserver_cpus;
    cfg->spin_ns = (uint64_t)spin;
    cfg->server_spin_ns = (uint64_t)server_spin;
    cfg->pool_max = (int)pool_max;
    cfg->pool_spare = (int)pool_spare;
    cfg->pool_idle_ns = (uint64_t)pool_idle_ms * 1000000u;
    cfg->detect_ns = (uint64_t)detect_us * 1000u;
    cfg->adaptive_flip = (int)flip;
    cfg->local_wait_ns = (uint64_t)local_wait_us * 1000u;
    cfg->no_as_caller = !as_caller;
}
