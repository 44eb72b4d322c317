/*
 * placement.c - where the servers run.
 *
 * Policy (ARCHITECTURE.md, decision 6):
 *  1. Core kinds come from hwloc (hwloc_cpukinds_*: kinds are ranked by efficiency, the last
 *     one is the fastest), or from RCL_CPU_KINDS, which declares them so that a symmetric
 *     machine can emulate big/little ("little=0-5;big=6-7", least efficient first).
 *  2. Servers go on cores of the fastest kind, one PU per core (never two servers on SMT
 *     siblings while whole cores are free), spread round-robin over the NUMA nodes that have
 *     such cores, highest-numbered core first (low-numbered cores are where the OS and most
 *     programs put their first threads).
 *  3. RCL_SERVER_CPUS overrides the choice; every listed CPU must exist and be allowed.
 *  4. Clients: when at least one allowed PU remains once the servers' whole cores (their SMT
 *     siblings too) are set aside, a client thread whose affinity is still the whole process
 *     mask is moved off those PUs when it registers, that is at its first delegated call
 *     (RCL_CLIENT_AFFINITY=auto|exclude); a thread the program pinned itself is left alone.
 *     RCL_CLIENT_AFFINITY=any never touches client affinity. In adaptive mode, auto does so only
 *     on a machine where the servers' cores are a small share of the allowed PUs (at most
 *     1/RCL_SMALL_SHARE): see "Clients in adaptive mode" below.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* RCL_CPU_KINDS="little=0-5;big=6-7": returns the number of kinds declared, 0 if malformed. */
static int parse_declared_kinds(struct rcl_placement *pl, const char *spec, hwloc_bitmap_t *sets,
                                hwloc_const_bitmap_t complete) {
    char buf[1024];
    if (strlen(spec) >= sizeof buf) return 0;
    strcpy(buf, spec);
    int n = 0;
    char *save = NULL;
    for (char *item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(item, '=');
        if (!eq || eq == item || n == 8 || (size_t)(eq - item) >= sizeof pl->kinds[0].name)
            return 0;
        *eq = '\0';
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (hwloc_bitmap_list_sscanf(set, eq + 1) < 0 || hwloc_bitmap_iszero(set) ||
            !hwloc_bitmap_isincluded(set, complete)) {
            hwloc_bitmap_free(set);
            return 0;
        }
        for (int k = 0; k < n; k++)
            if (hwloc_bitmap_intersects(sets[k], set)) {
                hwloc_bitmap_free(set);
                return 0;
            }
        sets[n] = set;
        snprintf(pl->kinds[n].name, sizeof pl->kinds[n].name, "%s", item);
        pl->kinds[n].efficiency = n;
        n++;
    }
    return n;
}

static void load_kinds(struct rcl_placement *pl, const struct rcl_config *cfg,
                       hwloc_bitmap_t *sets) {
    hwloc_const_bitmap_t complete = hwloc_topology_get_complete_cpuset(pl->topo);
    pl->nkinds = 0;
    if (cfg->cpu_kinds) {
        pl->nkinds = parse_declared_kinds(pl, cfg->cpu_kinds, sets, complete);
        pl->kinds_declared = pl->nkinds > 0;
        if (!pl->nkinds) {
            for (int k = 0; k < 8 && sets[k]; k++) {
                hwloc_bitmap_free(sets[k]);
                sets[k] = NULL;
            }
            rcl_warn("RCL_CPU_KINDS=%s: expected 'name=cpulist;name=cpulist' with existing, "
                     "disjoint CPUs, least efficient kind first (e.g. 'little=0-5;big=6-7'); "
                     "using the kinds hwloc detects",
                     cfg->cpu_kinds);
        }
    }
    if (!pl->nkinds) {
        int nr = hwloc_cpukinds_get_nr(pl->topo, 0);
        bool ranked = true;
        for (int k = 0; k < nr && k < 8; k++) {
            sets[k] = hwloc_bitmap_alloc();
            int eff = -1;
            unsigned ninfos = 0;
            struct hwloc_info_s *infos = NULL;
            hwloc_cpukinds_get_info(pl->topo, (unsigned)k, sets[k], &eff, &ninfos, &infos, 0);
            pl->kinds[k].efficiency = eff;
            snprintf(pl->kinds[k].name, sizeof pl->kinds[k].name, "kind%d", k);
            for (unsigned i = 0; i < ninfos; i++)
                if (!strcmp(infos[i].name, "CoreType"))
                    snprintf(pl->kinds[k].name, sizeof pl->kinds[k].name, "%s", infos[i].value);
            if (eff < 0) ranked = false;
            pl->nkinds++;
        }
        if (!ranked && pl->nkinds > 1) {
            /* hwloc could not rank the kinds: treat the machine as symmetric. */
            for (int k = 1; k < pl->nkinds; k++) {
                hwloc_bitmap_or(sets[0], sets[0], sets[k]);
                hwloc_bitmap_free(sets[k]);
                sets[k] = NULL;
            }
            pl->nkinds = 1;
            snprintf(pl->kinds[0].name, sizeof pl->kinds[0].name, "unranked");
        }
    }
    if (!pl->nkinds) { /* no kind information at all: one kind, every PU */
        sets[0] = hwloc_bitmap_dup(complete);
        pl->nkinds = 1;
        pl->kinds[0].efficiency = 0;
        snprintf(pl->kinds[0].name, sizeof pl->kinds[0].name, "default");
    }
    for (int k = 0; k < pl->nkinds; k++)
        hwloc_bitmap_list_snprintf(pl->kinds[k].cpus, sizeof pl->kinds[k].cpus, sets[k]);
}

void rcl_cpuset_list(const cpu_set_t *set, char *buf, size_t len) {
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set)) hwloc_bitmap_set(b, (unsigned)c);
    hwloc_bitmap_list_snprintf(buf, len, b);
    hwloc_bitmap_free(b);
}

static bool cpu_allowed(const struct rcl_placement *pl, int cpu) {
    return cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &pl->allowed);
}

/* NUMA nodes (OS indexes) in placement order: the highest node of each package, packages
 * from the highest, then each package's next node, and so on. Returns how many. */
static int node_order(const struct rcl_placement *pl, int *order) {
    int nnodes = hwloc_get_nbobjs_by_type(pl->topo, HWLOC_OBJ_NUMANODE), n = 0;
    if (nnodes <= 0) {
        order[0] = 0;
        return 1;
    }
    int npkg = hwloc_get_nbobjs_by_type(pl->topo, HWLOC_OBJ_PACKAGE);
    bool taken[CPU_SETSIZE] = {false};
    while (n < nnodes && n < CPU_SETSIZE) {
        int before = n;
        for (int p = (npkg > 0 ? npkg : 1) - 1; p >= 0; p--) {
            hwloc_obj_t pkg =
                npkg > 0 ? hwloc_get_obj_by_type(pl->topo, HWLOC_OBJ_PACKAGE, (unsigned)p) : NULL;
            for (int j = nnodes - 1; j >= 0; j--) {
                hwloc_obj_t node = hwloc_get_obj_by_type(pl->topo, HWLOC_OBJ_NUMANODE, (unsigned)j);
                if (taken[j] || (pkg && !hwloc_bitmap_isincluded(node->cpuset, pkg->cpuset)))
                    continue;
                taken[j] = true;
                order[n++] = (int)node->os_index;
                break;
            }
        }
        if (n == before) break;
    }
    return n;
}

/* Choose servers on the fastest kind: round-robin over NUMA nodes (packages alternating),
 * highest core first. */
static void choose_automatic(struct rcl_placement *pl, hwloc_bitmap_t *sets) {
    int cand[CPU_SETSIZE], node_of[CPU_SETSIZE], ncand = 0;
    hwloc_bitmap_t best = sets[pl->nkinds - 1];
    int ncores = hwloc_get_nbobjs_by_type(pl->topo, HWLOC_OBJ_CORE);
    for (int i = ncores - 1; i >= 0 && ncand < CPU_SETSIZE; i--) {
        hwloc_obj_t core = hwloc_get_obj_by_type(pl->topo, HWLOC_OBJ_CORE, (unsigned)i);
        int pu = -1;
        unsigned id;
        hwloc_bitmap_foreach_begin(id, core->cpuset) {
            if (pu < 0 && hwloc_bitmap_isset(best, id) && cpu_allowed(pl, (int)id)) pu = (int)id;
        }
        hwloc_bitmap_foreach_end();
        if (pu < 0) continue;
        hwloc_obj_t pu_obj = hwloc_get_pu_obj_by_os_index(pl->topo, (unsigned)pu);
        node_of[ncand] = pu_obj && pu_obj->nodeset ? hwloc_bitmap_first(pu_obj->nodeset) : 0;
        cand[ncand++] = pu;
    }
    if (ncand == 0) { /* the fastest kind is not allowed to us: use any allowed PU */
        for (int c = CPU_SETSIZE - 1; c >= 0 && ncand < CPU_SETSIZE; c--)
            if (CPU_ISSET(c, &pl->allowed)) {
                node_of[ncand] = 0;
                cand[ncand++] = c;
            }
    }
    /* Round-robin over NUMA nodes, in an order that alternates packages first (on a 4-socket
     * machine with 2 nodes per socket, 4 servers go to 4 sockets, not to 2 sockets' 4 nodes):
     * repeatedly take the first (highest) unused candidate of each node in that order. */
    int order[CPU_SETSIZE], norder = node_order(pl, order);
    bool used[CPU_SETSIZE] = {false};
    int placed = 0;
    while (placed < pl->nservers) {
        bool progress = false;
        for (int k = 0; k < norder && placed < pl->nservers; k++)
            for (int i = 0; i < ncand; i++) {
                if (used[i] || node_of[i] != order[k]) continue;
                used[i] = true;
                pl->server_cpus[placed++] = cand[i];
                progress = true;
                break;
            }
        if (!progress) break;
    }
    if (placed < pl->nservers) {
        rcl_warn("RCL_SERVERS=%d: only %d suitable cores; servers share cores", pl->nservers,
                 ncand);
        for (int i = placed; i < pl->nservers; i++)
            pl->server_cpus[i] = cand[i % ncand];
    }
    snprintf(pl->why, sizeof pl->why, "fastest core kind '%s' (%s), one PU per core, highest first",
             pl->kinds[pl->nkinds - 1].name, pl->kinds[pl->nkinds - 1].cpus);
}

/*
 * Clients in adaptive mode (RCL_CLIENT_AFFINITY=auto). Adaptive mode runs most sections of most
 * locks in their callers, so whether clients may use the servers' cores is a trade:
 *  - kept off, a thread loses the servers' whole cores (SMT siblings included): the share
 *    `excluded / allowed` of the PUs it could run on;
 *  - let on, once a lock delegates, a client the scheduler puts on a server's PU preempts the
 *    server (every delegated section then waits for a time slice), and one on its SMT sibling
 *    slows it down.
 * On 2 cores the share is 1/2: keeping clients off would halve the machine for a program that
 * mostly runs locally, so they are let on (as before; the adaptive model counts the server's
 * CPU as taken from callers that may use it: adaptive.c, rcl_adaptive_effective). When the
 * share is small (at most 1/RCL_SMALL_SHARE) the loss is small and clients are kept off, as in
 * delegate mode. 1/6, so that 4 servers on a 2-socket, 4-node, SMT-2 machine of 48 PUs
 * ('pack:2 numa:2 core:6 pu:2': 8 of 48 PUs) keep clients off, and 1 server on 4 cores (1/4)
 * or 4 servers on 32 PUs with SMT (8 of 32) do not.
 * When: at the thread's registration, which is its first delegated call (delegate.c,
 * client_register), not at start-up. A thread whose sections all stay local never delegates
 * and keeps every CPU; a program that never delegates loses none. A thread that delegated once
 * (an exploration of the server is enough) stays off the servers' cores afterwards, even if
 * its locks go back to the local path: moving it back and forth at each switch would cost a
 * system call per switch and per thread, for at most 1/RCL_SMALL_SHARE of the PUs.
 */
#define RCL_SMALL_SHARE 6 /* a small share: at most 1 / RCL_SMALL_SHARE of the allowed PUs */

static bool adaptive_excludes(struct rcl_placement *pl) {
    int allowed = CPU_COUNT(&pl->allowed), excluded = allowed - CPU_COUNT(&pl->client_set);
    bool small = excluded * RCL_SMALL_SHARE <= allowed;
    snprintf(pl->clients_why, sizeof pl->clients_why,
             "adaptive mode: the servers' cores are %d of %d PUs (%s 1/%d)", excluded, allowed,
             small ? "at most" : "more than", RCL_SMALL_SHARE);
    return small;
}

void rcl_placement_init(struct rcl_placement *pl, const struct rcl_config *cfg) {
    memset(pl, 0, sizeof *pl);
    pl->nservers = cfg->nservers;
    for (int i = 0; i < RCL_MAX_SERVERS; i++)
        pl->server_cpus[i] = -1;
    bool described = cfg->topology_xml || cfg->topology_synthetic;
    if (sched_getaffinity(0, sizeof pl->allowed, &pl->allowed) != 0) CPU_ZERO(&pl->allowed);

    if (hwloc_topology_init(&pl->topo) != 0 ||
        (cfg->topology_xml && hwloc_topology_set_xml(pl->topo, cfg->topology_xml) != 0) ||
        (cfg->topology_synthetic &&
         hwloc_topology_set_synthetic(pl->topo, cfg->topology_synthetic) != 0) ||
        hwloc_topology_load(pl->topo) != 0) {
        if (pl->topo) hwloc_topology_destroy(pl->topo);
        pl->topo = NULL;
        snprintf(pl->why, sizeof pl->why, "hwloc could not load the topology: servers unpinned");
        rcl_warn("%s", pl->why);
        return;
    }
    /* The process's allowed CPUs (cgroup/cpuset), not the calling thread's affinity: the
     * first delegating thread may have pinned itself. */
    hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(pl->topo);
    if (described) CPU_ZERO(&pl->allowed); /* another machine: all of its PUs, not ours */
    if (allowed && !hwloc_bitmap_iszero(allowed)) {
        CPU_ZERO(&pl->allowed);
        unsigned id;
        hwloc_bitmap_foreach_begin(id, allowed) {
            if (id < CPU_SETSIZE) CPU_SET(id, &pl->allowed);
        }
        hwloc_bitmap_foreach_end();
    }
    pl->ncores = hwloc_get_nbobjs_by_type(pl->topo, HWLOC_OBJ_CORE);
    pl->npus = hwloc_get_nbobjs_by_type(pl->topo, HWLOC_OBJ_PU);
    pl->nnuma = hwloc_get_nbobjs_by_type(pl->topo, HWLOC_OBJ_NUMANODE);

    hwloc_bitmap_t sets[8] = {NULL};
    load_kinds(pl, cfg, sets);

    bool explicit_ok = cfg->nserver_cpus > 0;
    for (int i = 0; i < cfg->nserver_cpus; i++)
        if (!cpu_allowed(pl, cfg->server_cpus[i])) {
            char allowed[256];
            rcl_cpuset_list(&pl->allowed, allowed, sizeof allowed);
            rcl_warn("RCL_SERVER_CPUS: CPU %d does not exist or is not allowed to this process "
                     "(allowed: %s); choosing server CPUs from the topology",
                     cfg->server_cpus[i], allowed);
            explicit_ok = false;
            break;
        }
    if (explicit_ok) {
        for (int i = 0; i < cfg->nserver_cpus; i++)
            pl->server_cpus[i] = cfg->server_cpus[i];
        snprintf(pl->why, sizeof pl->why, "RCL_SERVER_CPUS");
    } else {
        choose_automatic(pl, sets);
    }
    for (int k = 0; k < 8; k++)
        if (sets[k]) hwloc_bitmap_free(sets[k]);

    /* Clients stay off the servers' whole cores: an SMT sibling of a server's PU shares its
     * pipeline and caches, so a client there would slow the server down. */
    pl->client_set = pl->allowed;
    for (int i = 0; i < pl->nservers; i++) {
        int cpu = pl->server_cpus[i];
        if (cpu < 0) continue;
        CPU_CLR(cpu, &pl->client_set);
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(pl->topo, (unsigned)cpu);
        hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(pl->topo, HWLOC_OBJ_CORE, pu) : NULL;
        unsigned id;
        if (core) {
            hwloc_bitmap_foreach_begin(id, core->cpuset) {
                if (id < CPU_SETSIZE) CPU_CLR(id, &pl->client_set);
            }
            hwloc_bitmap_foreach_end();
        }
    }
    bool room = CPU_COUNT(&pl->client_set) >= 1;
    pl->exclude_clients = room && (cfg->client_affinity == RCL_AFFINITY_EXCLUDE ||
                                   (cfg->client_affinity == RCL_AFFINITY_AUTO &&
                                    (cfg->mode != RCL_MODE_ADAPTIVE || adaptive_excludes(pl))));
    pl->step_clients = room && !pl->exclude_clients && cfg->mode == RCL_MODE_ADAPTIVE &&
                       cfg->client_affinity == RCL_AFFINITY_AUTO;
    if (cfg->client_affinity == RCL_AFFINITY_EXCLUDE && !room)
        rcl_warn("RCL_CLIENT_AFFINITY=exclude: the servers use every allowed CPU; clients are "
                 "not moved");
}

void rcl_placement_fini(struct rcl_placement *pl) {
    if (pl->topo) hwloc_topology_destroy(pl->topo);
    pl->topo = NULL;
}

int rcl_placement_bind_self(const struct rcl_placement *pl, int cpu) {
    (void)pl;
    if (cpu < 0 || cpu >= CPU_SETSIZE) return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0 ? 0 : -1;
}

/* Whether every CPU of set is a server CPU. */
static bool only_server_cpus(const cpu_set_t *set, const struct rcl_placement *pl) {
    cpu_set_t servers;
    CPU_ZERO(&servers);
    for (int i = 0; i < pl->nservers; i++)
        if (pl->server_cpus[i] >= 0 && pl->server_cpus[i] < CPU_SETSIZE)
            CPU_SET(pl->server_cpus[i], &servers);
    cpu_set_t rest;
    CPU_AND(&rest, set, &servers);
    return CPU_COUNT(set) > 0 && CPU_EQUAL(&rest, set);
}

void rcl_placement_client_register(const struct rcl_placement *pl) {
    cpu_set_t cur;
    if (pthread_getaffinity_np(pthread_self(), sizeof cur, &cur) != 0) return;
    /* A thread confined to server CPUs was almost always created by a servicing thread (a
     * critical section that calls pthread_create, like memcached's start_lru_maintainer_thread):
     * it inherited the server's pin and would compete with the server it delegates to. */
    if (only_server_cpus(&cur, pl) && !CPU_EQUAL(&cur, &pl->allowed)) {
        const cpu_set_t *to = pl->exclude_clients ? &pl->client_set : &pl->allowed;
        static _Atomic int warned;
        if (!atomic_exchange(&warned, 1)) {
            char from[256], dest[256];
            rcl_cpuset_list(&cur, from, sizeof from);
            rcl_cpuset_list(to, dest, sizeof dest);
            rcl_warn("a thread confined to server CPU(s) %s delegates (created inside a delegated "
                     "critical section?); moved to CPUs %s",
                     from, dest);
        }
        pthread_setaffinity_np(pthread_self(), sizeof *to, to);
        return;
    }
    if (!pl->exclude_clients) return;
    if (!CPU_EQUAL(&cur, &pl->allowed))
        return; /* the program chose this thread's CPUs: respect that */
    pthread_setaffinity_np(pthread_self(), sizeof pl->client_set, &pl->client_set);
}

/*
 * Stepping off (adaptive mode where clients keep the servers' cores: RCL_CLIENT_AFFINITY=auto
 * and the cores are more than 1/RCL_SMALL_SHARE of the PUs, a 2-core machine). Once a lock
 * delegates, a client the scheduler puts on its server's core preempts the server, and every
 * delegated section then waits for a time slice: on the 2-vCPU VM, emulated big/little with the
 * lock delegated 96 % of each run, the delegated calls per second were 20 % lower in the runs
 * where a client shared the server's CPU, which delegate mode never lets happen (0.79-0.86x of
 * delegate mode in 5 runs of 10, docs/results.md, "Adaptive mode run after run, third pass").
 * So a thread steps off the servers' cores while it delegates -- from the first call of a trial
 * of the server (not of a 16-call exploration), so that the trial measures the path as it will
 * run -- and back on once it no longer does (adaptive.c, rcl_adaptive_begin: at its next call
 * that enters librcl on the local path of the lock that moved it, which includes every call of
 * a look at local, or of any lock 10 ms after its last delegated call). A look at local is
 * then measured with the thread's CPUs as the original program had them.
 *  - The program's own choice is kept: a thread whose CPUs are not every allowed CPU is not
 *    moved (rcl_placement_client_register's rule), and one the program moved meanwhile is not
 *    moved back.
 *  - A thread created while its creator was off inherits that; its first adaptive call puts it
 *    back on (rcl_placement_step_inherited), once some thread of the process stepped off.
 *  - A child forked by a thread that is off gets every CPU back (the atfork child handler,
 *    before the child's runtime reads the process's CPUs).
 *  - Limits: a thread that steps off and never calls a converted lock again stays off; a
 *    program that posix_spawn()s (system(), popen() in glibc), which runs no atfork handler,
 *    from a thread that is off starts the program with that thread's CPUs, as a client of
 *    delegate mode always does.
 * Cost: two system calls (get, set) per step, per thread; steps come with decisions, which
 * come seldom once a lock settled.
 */
static _Atomic bool stepped; /* some thread stepped off (relaxed: a hint for new threads) */

bool rcl_placement_step_off(const struct rcl_placement *pl) {
    cpu_set_t cur;
    if (pthread_getaffinity_np(pthread_self(), sizeof cur, &cur) != 0) return false;
    /* Where a stepped-off thread would be: inherited from one (off already), or, before any
     * thread stepped off, the program's own choice */
    if (CPU_EQUAL(&cur, &pl->client_set))
        return atomic_load_explicit(&stepped, memory_order_relaxed);
    if (!CPU_EQUAL(&cur, &pl->allowed)) return false; /* the program chose: keep it */
    atomic_store_explicit(&stepped, true, memory_order_relaxed);
    return pthread_setaffinity_np(pthread_self(), sizeof pl->client_set, &pl->client_set) == 0;
}

void rcl_placement_step_on(const struct rcl_placement *pl) {
    cpu_set_t cur;
    if (pthread_getaffinity_np(pthread_self(), sizeof cur, &cur) != 0) return;
    if (CPU_EQUAL(&cur, &pl->client_set)) /* the program did not move it meanwhile */
        pthread_setaffinity_np(pthread_self(), sizeof pl->allowed, &pl->allowed);
}

void rcl_placement_step_inherited(const struct rcl_placement *pl) {
    if (atomic_load_explicit(&stepped, memory_order_relaxed)) rcl_placement_step_on(pl);
}
