// A delegated lock whose server is preempted goes back to local. The lock is driven through the
// runtime's own sampling and epochs (rcl_adaptive_begin / rcl_adaptive_end, one thread) with
// call costs given, not timed: local 2000 ticks a call, delegated 100, so it moves to the server
// (at its first epoch: the local path's calls per second are not known). Then the server is made
// to look preempted (rcl__server_inject_wait: as if its thread had waited for its CPU most of the
// time, the emulated steal signal) and each delegated call takes 1 ms (a sleep: an answer that
// comes at the server's next turn on its CPU) and reports 4000 ticks. The lock must be local again
// within 800 delegated calls (200-460 in 6 runs), with that reason: its delegated epochs end
// after 20 ms (4 samples at least) instead of 64 samples -- 1,024 calls at one in 16, a second
// here -- and the preempted rule (two such epochs in a row) takes it home. Without either, it
// stays on the server for the 3,000 calls the loop allows, or leaves after ~2,000. A bound on
// calls, not on time. Then, with the server still preempted, the next trials of the server go
// back as well, for that reason.
// RUN: %cc %rcl_internal %s -o %t %rcl_libs
// RUN: env RCL_MODE=adaptive %t | FileCheck %s
// CHECK: delegated: 1 switch
// CHECK: preempted: local again after {{[0-9]+}} delegated calls (800 at most), reason: the server was preempted: its CPU is contended
// CHECK: still preempted: {{[0-9]+}} delegated calls in the next 100000, switches 1, reason: the server was preempted: its CPU is contended
#include "Inputs/harness.h"
#include "internal.h"

#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static int cs(void *arg) {
    (void)arg;
    return 0;
}

static void spin_ns(uint64_t ns) {
    uint64_t until = rcl_now_ns() + ns;
    while (rcl_now_ns() < until)
        ;
}

/* One call of the lock, on the path adaptive mode chose for it; the sampled ones report the
 * given cost. slow: a delegated call takes 1 ms (and the server looks preempted meanwhile). */
static enum rcl_path one_call(struct rcl_server *s, bool slow) {
    struct rcl_adaptive_call c;
    bool sample;
    enum rcl_path p = rcl_adaptive_begin(&m, cs, NULL, &c, &sample);
    c.site = NULL;
    pthread_mutex_lock(&m);
    rcl_adaptive_run(&c); /* counts the call, as under RCL_STATS */
    pthread_mutex_unlock(&m);
    if (p == RCL_PATH_LOCAL) {
        spin_ns(2000); /* the local path's calls per second are lower too */
    } else if (slow) {
        rcl__server_inject_wait(s, 5000000); /* 5 ms waited for the CPU per 1 ms call */
        usleep(1000);
    }
    if (sample) rcl_adaptive_end(&c, s, p == RCL_PATH_LOCAL ? 2000 : slow ? 4000 : 100);
    return p;
}

static const char *reason(void) {
    switch (rcl__adaptive_state(&m)->reason) {
    case RCL_REASON_SERVER_PREEMPTED:
        return "the server was preempted: its CPU is contended";
    case RCL_REASON_DELEGATE_FASTER:
        return "delegation measured faster";
    default:
        return "another";
    }
}

int main(void) {
    struct rcl_server *s = rcl__server(0); /* starts the runtime: adaptive, one server */
    CHECK(s != NULL && rcl_mode() == RCL_MODE_ADAPTIVE);
    /* 1. Delegation wins (by the given costs and by calls per second). */
    const struct rcl_adaptive_state *st = NULL;
    for (long i = 0; i < 2000000; i++) {
        enum rcl_path p = one_call(s, false);
        st = rcl__adaptive_state(&m);
        if (p == RCL_PATH_DELEGATE && st->switches && !st->exploring && !st->confirming) break;
    }
    printf("delegated: %u switch\n", st->switches);
    CHECK(st->switches == 1);
    /* 2. Its server's CPU becomes contended. */
    int delegated = 0;
    for (int i = 0; i < 3000; i++) {
        if (one_call(s, true) == RCL_PATH_LOCAL && st->reason == RCL_REASON_SERVER_PREEMPTED)
            break;
        delegated++;
    }
    printf("preempted: local again after %d delegated calls (800 at most), reason: %s\n",
           delegated, reason());
    CHECK(delegated <= 800);
    /* 3. Still contended: the next trials of the server (100 ms later, then ever more rarely)
     * come back as well. 100,000 calls: the local ones spin 2 us each, so they last 0.2 s or
     * more, time for a trial or two. */
    delegated = 0;
    for (int i = 0; i < 100000; i++)
        delegated += one_call(s, true) == RCL_PATH_DELEGATE;
    while (st->exploring || st->confirming)
        one_call(s, true); /* a trial under way: let it end */
    printf("still preempted: %d delegated calls in the next 100000, switches %u, reason: %s\n",
           delegated, st->switches, reason());
    CHECK(st->switches == 1); /* no trial of the server was confirmed */
    return 0;
}
