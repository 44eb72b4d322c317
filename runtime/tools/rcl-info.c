/*
 * rcl-info - print the topology librcl detects, the core kinds, and the server placement it
 * would choose with the current environment (RCL_SERVERS, RCL_SERVER_CPUS, RCL_CPU_KINDS,
 * RCL_CLIENT_AFFINITY, RCL_MODE, ...). Starts no server.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *to) {
    fprintf(to, "usage: rcl-info [--json] [--topology FILE.xml | --synthetic DESCRIPTION]\n"
                "Print the CPU topology, core kinds and the server placement librcl would use\n"
                "with the current RCL_* environment. Starts no server.\n"
                "  --json                   machine-readable output\n"
                "  --topology FILE.xml      the placement on the machine an hwloc XML file\n"
                "                           describes (lstopo --of xml; cpukinds included)\n"
                "  --synthetic DESCRIPTION  the same for an hwloc synthetic description,\n"
                "                           e.g. 'pack:2 numa:2 core:4 pu:2'\n"
                "  --help                   this text\n");
}

static int kind_of(const struct rcl_placement *pl, int cpu) {
    for (int k = pl->nkinds - 1; k >= 0; k--) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        hwloc_bitmap_list_sscanf(set, pl->kinds[k].cpus);
        int in = cpu >= 0 && hwloc_bitmap_isset(set, (unsigned)cpu);
        hwloc_bitmap_free(set);
        if (in) return k;
    }
    return -1;
}

int main(int argc, char **argv) {
    int json = 0;
    const char *xml = NULL, *synthetic = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if ((!strcmp(argv[i], "--topology") || !strcmp(argv[i], "--synthetic")) &&
                 i + 1 < argc) {
            if (argv[i][2] == 't') {
                xml = argv[++i];
                FILE *f = fopen(xml, "r");
                if (!f) {
                    fprintf(stderr, "rcl-info: cannot read %s\n", xml);
                    return 2;
                }
                fclose(f);
            } else
                synthetic = argv[++i];
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "rcl-info: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    struct rcl_config cfg;
    struct rcl_placement pl;
    rcl_config_load(&cfg);
    cfg.topology_xml = xml;
    cfg.topology_synthetic = synthetic;
    rcl_placement_init(&pl, &cfg);
    if (!pl.topo && (xml || synthetic)) {
        fprintf(stderr, "rcl-info: hwloc cannot load the topology %s\n", xml ? xml : synthetic);
        return 2;
    }
    char clients[256];
    rcl_cpuset_list(pl.exclude_clients ? &pl.client_set : &pl.allowed, clients, sizeof clients);
    const char *mode = cfg.mode == RCL_MODE_LOCAL      ? "local"
                       : cfg.mode == RCL_MODE_ADAPTIVE ? "adaptive"
                                                       : "delegate";

    if (json) {
        printf("{\"pus\": %d, \"cores\": %d, \"numa_nodes\": %d, \"mode\": \"%s\",\n", pl.npus,
               pl.ncores, pl.nnuma, mode);
        printf(" \"kinds\": [");
        for (int k = 0; k < pl.nkinds; k++)
            printf("%s{\"name\": \"%s\", \"efficiency\": %d, \"cpus\": \"%s\"}", k ? ", " : "",
                   pl.kinds[k].name, pl.kinds[k].efficiency, pl.kinds[k].cpus);
        printf("],\n \"servers\": [");
        for (int i = 0; i < pl.nservers; i++) {
            int k = kind_of(&pl, pl.server_cpus[i]);
            printf("%s{\"server\": %d, \"cpu\": %d, \"kind\": \"%s\"}", i ? ", " : "", i,
                   pl.server_cpus[i], k >= 0 ? pl.kinds[k].name : "");
        }
        printf("],\n \"placement\": \"%s\", \"clients_excluded\": %s, \"client_cpus\": \"%s\", "
               "\"clients_why\": \"%s\", \"clients_step_off\": %s,\n",
               pl.why, pl.exclude_clients ? "true" : "false", clients, pl.clients_why,
               pl.step_clients ? "true" : "false");
        printf(" \"client_spin_ns\": %llu, \"server_spin_ns\": %llu,\n"
               " \"pool_max\": %d, \"pool_spare\": %d, \"pool_idle_ms\": %llu, "
               "\"block_detect_us\": %llu}\n",
               (unsigned long long)cfg.spin_ns, (unsigned long long)cfg.server_spin_ns,
               cfg.pool_max, cfg.pool_spare, (unsigned long long)(cfg.pool_idle_ns / 1000000u),
               (unsigned long long)(cfg.detect_ns / 1000u));
        rcl_placement_fini(&pl);
        return 0;
    }
    printf("machine:   %d PUs, %d cores, %d NUMA node(s)%s\n", pl.npus, pl.ncores, pl.nnuma,
           xml || synthetic ? " (described, not this machine)" : "");
    printf("kinds:     (least efficient first%s)\n",
           pl.kinds_declared ? ", declared by RCL_CPU_KINDS" : "");
    for (int k = 0; k < pl.nkinds; k++)
        printf("  %-10s efficiency %-3d cpus %s\n", pl.kinds[k].name, pl.kinds[k].efficiency,
               pl.kinds[k].cpus);
    printf("mode:      %s\n", mode);
    printf("servers:   %d\n", pl.nservers);
    for (int i = 0; i < pl.nservers; i++) {
        int k = kind_of(&pl, pl.server_cpus[i]);
        printf("  server %d -> CPU %d (%s)\n", i, pl.server_cpus[i],
               k >= 0 ? pl.kinds[k].name : "unpinned");
    }
    printf("placement: %s\n", pl.why);
    printf("clients:   %s (CPUs %s)%s%s\n",
           pl.exclude_clients ? "kept off the servers' cores"
           : pl.step_clients  ? "off the servers' cores while they delegate"
                              : "not moved",
           clients, pl.clients_why[0] ? "; " : "", pl.clients_why);
    printf("waiting:   clients spin %llu ns then park; idle servers spin %llu ns then park\n",
           (unsigned long long)cfg.spin_ns, (unsigned long long)cfg.server_spin_ns);
    printf("blocking:  up to %d servicing threads per server, %d idle spare(s) kept %llu ms\n",
           cfg.pool_max, cfg.pool_spare, (unsigned long long)(cfg.pool_idle_ns / 1000000u));
    if (cfg.detect_ns)
        printf("           blocking detector checks every %llu us\n",
               (unsigned long long)(cfg.detect_ns / 1000u));
    else
        printf("           blocking detector off (only rcl_cond_wait hands the server over)\n");
    rcl_placement_fini(&pl);
    return 0;
}
