/* Prints the raw dump's layout as profiler/src/prof.h defines it, in the form of
 * rcltools.rawdump.layout(): dump-layout.test compares the two. */
#include <stddef.h>
#include <stdio.h>

#include "prof.h"

#define HEADER(f) printf("header.%s %zu %zu\n", #f, offsetof(struct raw_header, f), \
                         sizeof(((struct raw_header *)0)->f))
#define RECORD(f) printf("record.%s %zu %zu\n", #f, offsetof(struct lock_record, f), \
                         sizeof(((struct lock_record *)0)->f))

int main(void) {
    printf("magic %s\nversion %u\nsites %d\nkinds %d\n", RCL_PROF_RAW_MAGIC, RCL_PROF_RAW_VERSION,
           PROF_SITES, PROF_KINDS);
    printf("header_size %zu\nrecord_size %zu\n", sizeof(struct raw_header),
           sizeof(struct lock_record));
    printf("site_kind.lock %d\nsite_kind.trylock %d\nsite_kind.timedlock %d\n"
           "site_kind.delegate %d\n", SITE_LOCK, SITE_TRYLOCK, SITE_TIMEDLOCK, SITE_DELEGATE);
    printf("identity.init %d\nidentity.first_lock %d\nidentity.overflow %d\n", IDENT_INIT,
           IDENT_FIRST_LOCK, IDENT_OVERFLOW);
    printf("dump_reason.exit %d\ndump_reason.destructor %d\ndump_reason.signal %d\n"
           "dump_reason.underscore_exit %d\n", DUMP_EXIT, DUMP_DESTRUCTOR, DUMP_SIGNAL,
           DUMP_UNDERSCORE_EXIT);
    HEADER(magic);
    HEADER(version);
    HEADER(header_size);
    HEADER(record_size);
    HEADER(sites_per_record);
    HEADER(pid);
    HEADER(ppid);
    HEADER(start_ticks);
    HEADER(end_ticks);
    HEADER(start_ns);
    HEADER(end_ns);
    HEADER(thread_ticks);
    HEADER(threads_started);
    HEADER(nrecords);
    HEADER(locks_untracked);
    HEADER(holds_untracked);
    HEADER(hw_counters);
    HEADER(hw_errno);
    HEADER(nkinds);
    HEADER(dump_reason);
    HEADER(signal);
    HEADER(exe_len);
    HEADER(counter_event);
    HEADER(count_every);
    HEADER(maps_len);
    HEADER(kind_names);
    RECORD(acquisitions);
    RECORD(contended);
    RECORD(holds);
    RECORD(holds_timed);
    RECORD(hold_ticks);
    RECORD(hold_max_ticks);
    RECORD(wait_ticks);
    RECORD(pad0);
    RECORD(has_delegated);
    for (int i = 0; i < PROF_SITES; i++) {
        size_t site = offsetof(struct lock_record, sites) + (size_t)i * sizeof(struct lock_site);
        printf("record.site%d_pc %zu 8\n", i, site + offsetof(struct lock_site, pc));
        printf("record.site%d_count %zu 8\n", i, site + offsetof(struct lock_site, count));
        printf("record.site%d_kind %zu 4\n", i, site + offsetof(struct lock_site, kind));
        printf("record.site%d_pad %zu 4\n", i, site + offsetof(struct lock_site, pad));
    }
    RECORD(other_sites);
    RECORD(wait_max_ticks);
    RECORD(trylock_failures);
    RECORD(timeouts);
    RECORD(misses);
    RECORD(misses_cs);
    for (int k = 0; k < PROF_KINDS; k++)
        printf("record.kind%d %zu 8\n", k,
               offsetof(struct lock_record, hold_ticks_by_kind) + (size_t)k * 8);
    RECORD(delegated);
    RECORD(deleg_hold_ns);
    RECORD(deleg_hold_max_ns);
    RECORD(deleg_wait_ns);
    RECORD(deleg_wait_max_ns);
    RECORD(address);
    RECORD(init_pc);
    RECORD(identity_source);
    RECORD(generation);
    return 0;
}
