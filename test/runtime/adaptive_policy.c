// The adaptive policy's decision function on synthetic inputs (no timing): an uncontended lock
// stays local and explores delegation ever more rarely; heavy contention with long sections
// (delegation cheaper) moves the lock to the server and keeps it there; a saturated server gets
// no more delegation; a difference within the hysteresis margin switches nothing; a phase
// change makes the other path be tried again soon, one noisy epoch or a rise still far below
// the other path's cost does not; a short
// exploration that wins by luck
// (noise) does not move the lock unless the next full epoch confirms it; delegation's cost counts
// the CPU its server takes from the program when the program's threads need it; two equally
// good paths under noise do not flap; a crowded lock tries the server after a second, ever more
// rarely while trials lose, the first one early (50 ms) and cut short (10 ms) when it clearly
// loses; a lock whose sections wait on a condition, and a crowded one, are judged by their calls
// per second alone, both ways; a timed trial is judged against the median of the current path's
// recent epochs, not a slow first one, and not without them; a delegated lock whose server is
// preempted goes back to local after two such epochs and tries the server again 100 ms later,
// then ever more rarely while that lasts (a server preempted but keeping the calls per second
// stays); a held trial of the server says when it is due, and where delegation wins decisively
// the lock looks at local rarely and briefly; a lock whose local path gets slower than the
// server was in its last trial tries it again without waiting its second; one stalled epoch
// does not decide a trial, and a trial's calls per second are its epochs' mean; a crowded lock
// waits while another lock's trial runs, and the epochs during it are not its references.
// RUN: %cc %rcl_internal %s -o %t %rcl_libs
// RUN: %t | FileCheck %s
// CHECK: uncontended: local, 1000 epochs, delegated epochs 10, switches 0
// CHECK: contended: delegate, delegated epochs 990, switches 1
// CHECK: saturated: local, delegated epochs 0
// CHECK: margin: local, switches 0
// CHECK: one noisy epoch: local, explorations 0
// CHECK: phase change: delegate after 2 epochs
// CHECK: noisy: local, switches 0, path changes {{[0-9]+}}, delegated epochs {{[0-9]+}}
// CHECK: flapping: switches {{[0-9]+}}, at most 1 in 300 epochs
// CHECK: throughput drops: local, switches 0
// CHECK: throughput kept: delegate, switches 1
// CHECK: crowded: trials of the server 5 in 16 s, the first after {{5[0-9]}} ms, each refused after {{[0-9]+}} epochs
// CHECK: crowded, calls look slower, calls per second rise: delegate, the first trial at {{5[0-9]}} ms, confirmed at {{[0-9]+}} ms, switches 1
// CHECK: waiting, calls per second drop: trials of the server 5 in 16 s, the first after {{5[0-9]}} ms, each refused after {{[0-9]+}} epochs
// CHECK: waiting, calls look slower, calls per second rise: delegate, the first trial at {{5[0-9]}} ms, confirmed at {{[0-9]+}} ms, switches 1
// CHECK: preempted: local 2 epochs after the server's CPU became contended, trials of the server at 402 ms and later, at least 100 ms apart: {{[0-9]+}}, each back after its exploration; delegate again after it ended, switches 2
// CHECK: preempted, calls per second kept: delegate, switches 1
// CHECK: slow first epoch: local, switches 0, the server first tried at epoch 5
// CHECK: crowded from the third epoch: local, the server tried for 1 epoch
// CHECK: crowded, local's calls per second rise: local, switches 2
// CHECK: crowded, delegation wins decisively: delegate, the held trial due at 51 ms, tried at {{5[0-9]}} ms; then {{[0-9]}} looks at local, {{[0-9]+}} ms local in 1.5 s
// CHECK: a stalled epoch in the trial: delegate, switched at 1{{[0-9][0-9]}} ms
// CHECK: an alternating local path: delegate, switches 1, local epochs after the switch {{[0-9]+}}
// CHECK: calls per second rise decisively, calls look slower: delegate, switched at epoch {{[0-9]}}, switches 1
// CHECK: crowded, overtaken: delegate, the second trial at 1{{[0-9][0-9]}} ms, switches 1
// CHECK: another lock's trial: local, switches 0, the first trial at 7{{[2-9]}} ms, held meanwhile: yes
// CHECK: cpu share: 2 threads on 2 CPUs with a server: local 1000, delegated 1200 -> local
// CHECK: cpu share: 4 threads confined to a CPU without server:
// CHECK-SAME: local 4000, delegated 2400 -> delegate
// CHECK: cpu share: 47 threads on 48 CPUs with a server:
// CHECK-SAME: local 1000, delegated 600 -> delegate
#include "Inputs/harness.h"
#include "internal.h"

/* One epoch's measure: cost per call, wall time per sample (0: unknown), nothing else. */
static bool decide(struct rcl_adaptive_state *st, enum rcl_path path, uint64_t mean, uint64_t wall,
                   bool saturated) {
    struct rcl_epoch ep = {mean, wall, 0, saturated, false, false, 0, false};
    return rcl_adaptive_decide(st, path, &ep);
}

/* Run `epochs` epochs; cost[path] is what an epoch on that path measures. */
static enum rcl_path run(struct rcl_adaptive_state *st, enum rcl_path path, int epochs,
                         const uint64_t cost[2], bool saturated, int *delegated_epochs) {
    for (int i = 0; i < epochs; i++) {
        *delegated_epochs += path == RCL_PATH_DELEGATE;
        if (decide(st, path, cost[path], 0, saturated))
            path = path == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
    }
    return path;
}

static const char *name(enum rcl_path p) {
    return p == RCL_PATH_LOCAL ? "local" : "delegate";
}

int main(void) {
    struct rcl_adaptive_state st = {0};
    int d = 0;
    const uint64_t uncontended[2] = {40, 700}; /* local, delegated: ns per call */
    enum rcl_path p = run(&st, RCL_PATH_LOCAL, 1000, uncontended, false, &d);
    printf("uncontended: %s, %u epochs, delegated epochs %d, switches %u\n", name(p), st.epochs, d,
           st.switches);
    CHECK(st.reason == RCL_REASON_LOCAL_FASTER);

    struct rcl_adaptive_state c = {0};
    d = 0;
    const uint64_t contended[2] = {2500, 600};
    p = run(&c, RCL_PATH_LOCAL, 1000, contended, false, &d);
    printf("contended: %s, delegated epochs %d, switches %u\n", name(p), d, c.switches);
    CHECK(c.reason == RCL_REASON_DELEGATE_FASTER);

    struct rcl_adaptive_state s = {0};
    d = 0;
    p = run(&s, RCL_PATH_LOCAL, 1000, contended, true, &d);
    printf("saturated: %s, delegated epochs %d\n", name(p), d);
    CHECK(s.reason == RCL_REASON_SERVER_SATURATED);

    struct rcl_adaptive_state m = {0};
    d = 0;
    const uint64_t close[2] = {1000, 1000 - 1000 * RCL_ADAPTIVE_MARGIN / 100 + 20};
    p = run(&m, RCL_PATH_LOCAL, 1000, close, false, &d);
    printf("margin: %s, switches %u\n", name(p), m.switches);

    /* Settled local for a long time (explorations rare), then the local cost jumps. */
    struct rcl_adaptive_state ph = {0};
    d = 0;
    p = run(&ph, RCL_PATH_LOCAL, 2000, uncontended, false, &d);
    CHECK(p == RCL_PATH_LOCAL && ph.explore_every >= 64);
    /* One epoch 20x slower (a holder preempted: above the other path's estimate), then back;
     * and epochs 5x slower, but still well below delegation's estimate: no exploration comes
     * of either. */
    const uint64_t burst[2] = {20 * uncontended[0], uncontended[1]};
    const uint64_t slower[2] = {5 * uncontended[0], uncontended[1]};
    int before = d, every = ph.explore_every;
    p = run(&ph, p, 1, burst, false, &d);
    p = run(&ph, p, 3, uncontended, false, &d);
    p = run(&ph, p, 3, slower, false, &d);
    p = run(&ph, p, 3, uncontended, false, &d);
    printf("one noisy epoch: %s, explorations %d\n", name(p), d - before);
    CHECK(ph.explore_every == every);
    int n = 0;
    while (p == RCL_PATH_LOCAL && n < 100) {
        p = run(&ph, p, 1, contended, false, &d);
        n++;
    }
    printf("phase change: %s after %d epochs\n", name(p), n);

    /* Delegation is 15 % worse, but one exploration in three measures it 20 % better (a short
     * exploration of 16 samples is noisy); full epochs measure the truth. Without the
     * confirmation each lucky exploration moved the lock to the worse path. */
    struct rcl_adaptive_state nz = {0};
    p = RCL_PATH_LOCAL;
    int changes = 0, explorations = 0;
    d = 0;
    for (int i = 0; i < 3000; i++) {
        bool exploring = nz.exploring;
        uint64_t cost = p == RCL_PATH_LOCAL ? 1000 : 1150;
        if (exploring && p == RCL_PATH_DELEGATE && explorations++ % 3 == 0) cost = 800;
        d += p == RCL_PATH_DELEGATE;
        if (decide(&nz, p, cost, 0, false)) {
            p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
            changes++;
        }
    }
    printf("noisy: %s, switches %u, path changes %d, delegated epochs %d\n", name(p), nz.switches,
           changes, d);
    CHECK(d < 3000 / 20); /* the worse path runs < 5 % of the epochs */

    /* Two paths about as good: the local one costs 1000 in most epochs and 3000 when its holder
     * was preempted (two epochs in five), the delegated one 1500. Explorations win and are
     * confirmed by luck in both directions; each switch must push the next look further away,
     * or the lock flaps (a switch costs the calls that pay for moving the data and waking the
     * server; kvstore at 4 threads on 2 CPUs switched 194 times a second). */
    struct rcl_adaptive_state fl = {0};
    p = RCL_PATH_LOCAL;
    uint32_t rnd = 12345;
    for (int i = 0; i < 3000; i++) {
        rnd = rnd * 1103515245u + 12345u;
        uint64_t cost = p == RCL_PATH_DELEGATE ? 1500 : (rnd >> 16) % 5 < 2 ? 3000 : 1000;
        if (decide(&fl, p, cost, 0, false))
            p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
    }
    printf("flapping: switches %u, at most 1 in 300 epochs\n", fl.switches);
    CHECK(fl.switches <= 3000 / 300);

    /* Delegated calls are faster (600 against 1000 ticks), but the lock's calls per second drop
     * while delegating (its epochs last 1.6x longer: the server took a CPU the program's threads
     * needed): the confirmation refuses the switch. With the calls per second kept, it switches. */
    for (int kept = 0; kept < 2; kept++) {
        struct rcl_adaptive_state tp = {0};
        const uint64_t wall[2] = {1000, kept ? 1000 : 1600};
        p = RCL_PATH_LOCAL;
        for (int i = 0; i < 200; i++)
            if (decide(&tp, p, p == RCL_PATH_LOCAL ? 1000 : 600, wall[p], false))
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
        printf("throughput %s: %s, switches %u\n", kept ? "kept" : "drops", name(p), tp.switches);
    }

    /* Crowded (the server would take a CPU the callers use): delegated calls look faster (600
     * against 1000) but the lock's calls per second drop (wall 1600 against 1000). One epoch
     * per ms for 16 s: the first trial of the server comes after 50 ms, the next after 1 s, and
     * each refusal doubles the wait (1, 2, 4, 8 s: trials at 0.05, 1.05, 3.05, 7.05 and 15.05 s);
     * each is refused after 10 ms (its calls per second lose by more than twice the margin),
     * not 4 epochs nor 50 ms. Where the calls per second rise (wall 700) while the calls look
     * slower (3000: a crowded lock's delegated calls count the CPU the server takes), the first
     * trial wins, confirmed over 50 ms: the lock delegates within 100 ms (judged by the calls'
     * times first, as before, it never did).
     * Waiting (its sections wait on a condition; not crowded): the calls' own times do not count,
     * only calls per second, both ways -- delegated calls that look slower (their caller's clock
     * counts the wait and the hand-overs) but make more calls per second (wall 700) win; calls
     * that look faster but make fewer (wall 1600) lose, like a crowded lock's. */
    static const struct {
        const char *what;
        bool crowded, waited;
        uint64_t delegated_mean, delegated_wall;
    } trials_of[] = {{"crowded", true, false, 600, 1600},
                     {"crowded, calls look slower, calls per second rise", true, false, 3000, 700},
                     {"waiting, calls per second drop", false, true, 600, 1600},
                     {"waiting, calls look slower, calls per second rise", false, true, 3000, 700}};
    for (int i = 0; i < 4; i++) {
        struct rcl_adaptive_state cr = {0};
        const uint64_t mean[2] = {1000, trials_of[i].delegated_mean};
        const uint64_t wall[2] = {1000, trials_of[i].delegated_wall};
        int trials = 0, delegated = 0, first_ms = 0, switched_ms = 0;
        p = RCL_PATH_LOCAL;
        for (int ms = 1; ms <= 16000; ms++) {
            struct rcl_epoch ep = {mean[p],
                                   wall[p],
                                   (uint64_t)ms * 1000000,
                                   false,
                                   trials_of[i].crowded,
                                   trials_of[i].waited,
                                   0, false};
            delegated += p == RCL_PATH_DELEGATE;
            bool exploring = cr.exploring;
            if (rcl_adaptive_decide(&cr, p, &ep)) {
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
                if (p == RCL_PATH_DELEGATE && !exploring && !trials++) first_ms = ms;
            }
            if (cr.switches && !switched_ms) switched_ms = ms;
        }
        if (trials_of[i].delegated_wall > 1000) {
            printf("%s: trials of the server %d in 16 s, the first after %d ms, each refused "
                   "after %d epochs on average\n",
                   trials_of[i].what, trials, first_ms, trials ? delegated / trials : 0);
            CHECK(cr.switches == 0 && p == RCL_PATH_LOCAL);
            CHECK(delegated <= trials * 16); /* a losing trial costs ~10 ms */
        } else {
            printf("%s: %s, the first trial at %d ms, confirmed at %d ms, switches %u\n",
                   trials_of[i].what, name(p), first_ms, switched_ms, cr.switches);
            CHECK(switched_ms <= 110);
        }
    }

    /* Preempted: a contended lock that delegates (local 2500, delegated 600 per call; the
     * calls per second of both paths alike). From 300 ms on the server waits for its CPU 60 %
     * of the time and the delegated calls per second fall 6x (wall 6000 against the local
     * path's 1000): back to local after two such epochs (one may be a blip); the server is
     * tried again when 100 ms have passed (not explore_every epochs later), then ever more
     * rarely (each trial back after its exploration) while that lasts, and kept again once it
     * ended (3 s). With the calls per second kept (wall 800), the lock stays. */
    for (int kept = 0; kept < 2; kept++) {
        struct rcl_adaptive_state pr = {0};
        const uint64_t pmean[2] = {2500, 600};
        p = RCL_PATH_LOCAL;
        int back_at = 0, trials = 0, first = 0, last = 0, longest = 0;
        bool apart = true;
        for (int ms = 1; ms <= 16000; ms++) {
            bool preempted = ms > 300 && ms <= 3000;
            uint64_t w = p == RCL_PATH_LOCAL ? 1000 : preempted && !kept ? 6000 : 800;
            struct rcl_epoch ep = {pmean[p], w, (uint64_t)ms * 1000000, false, false, false,
                                   p == RCL_PATH_DELEGATE && preempted ? 600 : 0, false};
            enum rcl_path was = p;
            if (rcl_adaptive_decide(&pr, p, &ep))
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
            if (!preempted) continue;
            if (kept) continue;
            if (was == RCL_PATH_DELEGATE && p == RCL_PATH_LOCAL) {
                CHECK(pr.reason == RCL_REASON_SERVER_PREEMPTED);
                if (!back_at) back_at = ms;
                if (last && ms - last > longest) longest = ms - last; /* the trial's epochs */
            }
            if (was == RCL_PATH_LOCAL && p == RCL_PATH_DELEGATE) {
                if (last && ms - last < 100) apart = false;
                if (!first) first = ms;
                last = ms;
                trials++;
            }
        }
        if (!kept) {
            printf("preempted: local %d epochs after the server's CPU became contended, trials "
                   "of the server at %d ms and later, at least 100 ms apart: %d, each back after "
                   "%s; delegate again after it ended, switches %u\n",
                   back_at - 300, first, trials, longest == 1 ? "its exploration" : "longer",
                   pr.switches);
            CHECK(back_at == 302 && first == back_at + 100 && apart && trials < 10);
            CHECK(p == RCL_PATH_DELEGATE);
        } else {
            printf("preempted, calls per second kept: %s, switches %u\n", name(p), pr.switches);
        }
    }

    /* A slow first epoch: a crowded lock (one epoch every 60 ms, a slow lock) whose first
     * measured local epoch ran 5x slower than the rest (threads starting), and whose delegated
     * calls look faster (600 against 1000) but make 30 % fewer calls per second (wall 1300
     * against 1000). Judged against that first epoch alone (the trial was due at the second
     * epoch), or against a smoothed estimate still full of it, the trial of the server won;
     * after three measured epochs, against their median, it loses. */
    {
        struct rcl_adaptive_state sf = {0};
        const uint64_t smean[2] = {1000, 600};
        int first = 0;
        p = RCL_PATH_LOCAL;
        for (int k = 1; k <= 100; k++) {
            uint64_t w = p == RCL_PATH_DELEGATE ? 1300 : k == 1 ? 0 : k == 2 ? 5000 : 1000;
            struct rcl_epoch ep = {smean[p], w, (uint64_t)k * 60000000, false, true, false, 0, false};
            if (rcl_adaptive_decide(&sf, p, &ep))
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
            if (p == RCL_PATH_DELEGATE && !first) first = k + 1; /* the epoch that tries it */
        }
        printf("slow first epoch: %s, switches %u, the server first tried at epoch %d\n", name(p),
               sf.switches, first);
    }

    /* Crowded from the third epoch: the first epochs saw one thread (the others had not
     * sampled yet), so the server was explored at once (at the second: the first has no calls
     * per second to explore from), and the lock was crowded when the
     * exploration ended -- a trial by calls per second, with no local calls per second to
     * judge it by: it ran its whole 50 ms at a thousandth of the local path's calls. It must
     * come back after the exploration and wait for the local path's measures. One epoch per
     * ms; the delegated calls are slow (wall 1,000,000 against 1000). */
    {
        struct rcl_adaptive_state cs2 = {0};
        int delegated = 0;
        p = RCL_PATH_LOCAL;
        for (int ms = 1; ms <= 40; ms++) {
            uint64_t m = p == RCL_PATH_DELEGATE ? 100000 : 1000;
            uint64_t w = p == RCL_PATH_DELEGATE ? 1000000 : ms == 1 ? 0 : 1000;
            struct rcl_epoch ep = {m, w, (uint64_t)ms * 1000000, false, ms > 2, false, 0, false};
            delegated += p == RCL_PATH_DELEGATE;
            if (rcl_adaptive_decide(&cs2, p, &ep))
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
        }
        printf("crowded from the third epoch: %s, the server tried for %d epoch\n", name(p),
               delegated);
    }

    /* Crowded, the way back: delegation wins a trial (its calls per second rise: wall 700
     * against 1000; its calls look faster too, 600 against 1000); from 500 ms on the local
     * path makes 1.75x the delegated calls per second (wall 400 against 700) while its calls
     * look slower (3000: they wait for holders that the program's own threads preempt).
     * Judged by the calls' times the way back was closed; judged by calls per second, as the
     * trial that went there, the lock comes back. */
    {
        struct rcl_adaptive_state cb = {0};
        p = RCL_PATH_LOCAL;
        for (int ms = 1; ms <= 3000; ms++) {
            bool later = ms > 500;
            uint64_t m = p == RCL_PATH_DELEGATE ? 600 : later ? 3000 : 1000;
            uint64_t w = p == RCL_PATH_DELEGATE ? 700 : later ? 400 : 1000;
            struct rcl_epoch ep = {m, w, (uint64_t)ms * 1000000, false, true, false, 0, false};
            if (rcl_adaptive_decide(&cb, p, &ep))
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
            if (ms == 500) CHECK(cb.switches == 1); /* delegated (now and then a trial) */
        }
        printf("crowded, local's calls per second rise: %s, switches %u\n", name(p), cb.switches);
    }

    /* Crowded, delegation wins decisively (emulated big/little: the delegated calls per second
     * 3.4x the local ones, wall 1000 against 3400; one epoch per ms, 1.5 s). A held trial of the
     * server says when it is due (close_epoch ends the held epoch then: a settled lock's epochs
     * are long, and the first trial came 70 ms late). Once delegated, the lock looks at local
     * RCL_DECISIVE_EVERY epochs after the switch, not 2, each look ends after two epochs (it
     * loses decisively), and the next comes 4x later, not 2x.  */
    {
        struct rcl_adaptive_state bl = {0};
        const uint64_t bmean[2] = {1000, 600}, bwall[2] = {3400, 1000};
        int first = 0, looks = 0, local_after = 0;
        uint64_t due = 0;
        p = RCL_PATH_LOCAL;
        for (int ms = 1; ms <= 1500; ms++) {
            struct rcl_epoch ep = {bmean[p], bwall[p], (uint64_t)ms * 1000000, false, true,
                                   false,    0, false};
            enum rcl_path was = p;
            bool exploring = bl.exploring;
            if (rcl_adaptive_decide(&bl, p, &ep))
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
            if (!due && bl.reason == RCL_REASON_CROWDED) due = bl.due_ns;
            if (was == RCL_PATH_LOCAL && p == RCL_PATH_DELEGATE && !exploring && !first) first = ms;
            if (bl.switches && was == RCL_PATH_LOCAL) local_after++;
            if (bl.switches && was == RCL_PATH_DELEGATE && p == RCL_PATH_LOCAL) looks++;
        }
        printf("crowded, delegation wins decisively: %s, the held trial due at %llu ms, tried at "
               "%d ms; then %d looks at local, %d ms local in 1.5 s\n",
               name(p), (unsigned long long)(due / 1000000), first, looks, local_after);
        CHECK(p == RCL_PATH_DELEGATE && bl.switches == 1);
        CHECK(looks <= 8 && local_after <= 3 * looks);
    }

    /* A stall in a trial: as in the block above (delegated calls per second 3.4x the local
     * ones), but the trial's first epoch caught the whole machine stalled for 20 ms (wall
     * 20,000). Judged by its epochs' median, cut short only when its best epoch loses too, the
     * trial wins; by their mean, it ended at once and the lock stayed local for a second. */
    {
        struct rcl_adaptive_state sl = {0};
        int switched = 0, in_trial = 0;
        p = RCL_PATH_LOCAL;
        for (int ms = 1; ms <= 1500; ms++) {
            uint64_t w = p == RCL_PATH_LOCAL ? 3400 : sl.confirming && !in_trial++ ? 20000 : 1000;
            struct rcl_epoch ep = {
                p == RCL_PATH_LOCAL ? 1000 : 600, w, (uint64_t)ms * 1000000, false, true, false, 0, false};
            if (rcl_adaptive_decide(&sl, p, &ep))
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
            if (sl.switches && !switched) switched = ms;
        }
        printf("a stalled epoch in the trial: %s, switched at %d ms\n", name(p), switched);
        CHECK(p == RCL_PATH_DELEGATE && switched && switched < 200);
    }

    /* A look at an alternating local path: delegated (wall 1000), the local path runs three
     * fast epochs (wall 750: the threads on the big CPU) for each slow one (3300: on the
     * little one), each epoch the same number of calls. Its calls per second over the look are
     * the mean's, (3 x 750 + 3300) / 4 = 1387: it loses. Judged by the epochs' median (750) it
     * won, and the lock went local for good (each look lasts its 50 ms here: its best epochs
     * win). */
    {
        struct rcl_adaptive_state al = {0};
        int k = 0, local_epochs = 0;
        p = RCL_PATH_LOCAL;
        for (int ms = 1; ms <= 1500; ms++) {
            uint64_t w = p == RCL_PATH_DELEGATE ? 1000 : ms < 200 ? 3400 : k++ % 4 == 3 ? 3300 : 750;
            struct rcl_epoch ep = {p == RCL_PATH_LOCAL ? 1000 : 600, w, (uint64_t)ms * 1000000,
                                   false, true, false, 0, false};
            if (rcl_adaptive_decide(&al, p, &ep))
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
            local_epochs += al.switches && p == RCL_PATH_LOCAL;
        }
        printf("an alternating local path: %s, switches %u, local epochs after the switch %d\n",
               name(p), al.switches, local_epochs);
        CHECK(p == RCL_PATH_DELEGATE && al.switches == 1 && local_epochs < 300);
    }

    /* Calls per second that rise decisively win, whatever the calls' own times (emulated
     * asymmetry, 4 threads sharing the little CPU: the delegated calls, measured 48,500,
     * 70,216, 93,072 and 21,612 ticks in the four epochs of the confirmation, cost more than
     * the local ones' 56,000 on average, while their calls per second were 3x the local path's:
     * wall 100,000 against 320,000). One epoch per 3 ms, not crowded. */
    {
        struct rcl_adaptive_state dw = {0};
        static const uint64_t dmeans[4] = {48500, 70216, 93072, 21612};
        int k = 0, switched = 0;
        p = RCL_PATH_LOCAL;
        for (int i = 1; i <= 100; i++) {
            bool confirming = dw.confirming;
            uint64_t m = p == RCL_PATH_LOCAL ? 56000 : confirming ? dmeans[k++ % 4] : 27000;
            uint64_t w = p == RCL_PATH_LOCAL ? (i == 1 ? 0 : 320000) : dw.exploring ? 0 : 100000;
            struct rcl_epoch ep = {m, w, (uint64_t)i * 3000000, false, false, false, 0, false};
            if (rcl_adaptive_decide(&dw, p, &ep))
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
            if (dw.switches && !switched) switched = i;
        }
        printf("calls per second rise decisively, calls look slower: %s, switched at epoch %d, "
               "switches %u\n",
               name(p), switched, dw.switches);
        CHECK(p == RCL_PATH_DELEGATE && switched && switched < 10);
    }

    /* Crowded, overtaken: the first trial of the server loses (its calls per second, wall
     * 1300, against the local path's 1000), then from 100 ms on the local path makes fewer
     * calls per second than the server did in that trial (wall 2500: threads that started
     * later, or moved to a slow CPU). The next trial comes then, not a second after the
     * first, and wins. */
    {
        struct rcl_adaptive_state ov = {0};
        int trials = 0, second = 0;
        p = RCL_PATH_LOCAL;
        for (int ms = 1; ms <= 1500; ms++) {
            uint64_t w = p == RCL_PATH_DELEGATE ? 1300 : ms > 100 ? 2500 : 1000;
            struct rcl_epoch ep = {1000, w, (uint64_t)ms * 1000000, false, true, false, 0, false};
            bool exploring = ov.exploring;
            if (rcl_adaptive_decide(&ov, p, &ep)) {
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
                if (p == RCL_PATH_DELEGATE && !exploring && ++trials == 2) second = ms;
            }
        }
        printf("crowded, overtaken: %s, the second trial at %d ms, switches %u\n", name(p), second,
               ov.switches);
        CHECK(p == RCL_PATH_DELEGATE && second > 100 && second < 200);
    }

    /* Another lock's trial (one trial at a time): from 40 to 71 ms another lock of the program
     * tries its server, and the whole program runs at half its pace meanwhile (this crowded
     * lock's calls per second halve on either path: wall 2000 local, 2200 delegated, against
     * 1000 and 1100). The lock's own first trial falls due at 51 ms. Tried then, against the
     * local path's epochs measured during the other trial, it ran on into the other trial's end
     * and "won" (the pool's result lock, delegated for the rest of the run); now it waits until
     * the other trial is over, its references are the epochs outside it, and its trial loses
     * (1100 against 1000). */
    {
        struct rcl_adaptive_state ot = {0};
        int first = 0;
        bool held = false;
        p = RCL_PATH_LOCAL;
        for (int ms = 1; ms <= 400; ms++) {
            bool other = ms >= 40 && ms <= 71;
            uint64_t w = (p == RCL_PATH_DELEGATE ? 1100 : 1000) * (other ? 2 : 1);
            struct rcl_epoch ep = {1000, w, (uint64_t)ms * 1000000, false, true, false, 0, other};
            bool exploring = ot.exploring;
            if (rcl_adaptive_decide(&ot, p, &ep)) {
                p = p == RCL_PATH_LOCAL ? RCL_PATH_DELEGATE : RCL_PATH_LOCAL;
                if (p == RCL_PATH_DELEGATE && !exploring && !first) first = ms;
            }
            held |= ot.reason == RCL_REASON_OTHER_TRIAL;
        }
        printf("another lock's trial: %s, switches %u, the first trial at %d ms, held meanwhile: "
               "%s\n",
               name(p), ot.switches, first, held ? "yes" : "no");
    }

    /* The CPU share: delegation takes the server's CPU from the program while it runs. Raw
     * costs: local 1000, delegated 600 per call (delegation 1.7x faster as a caller sees it). */
    static const struct {
        const char *what;
        unsigned threads;
        int cpus, server_cpus;
    } shapes[] = {{"2 threads on 2 CPUs with a server", 2, 2, 1},
                  {"4 threads confined to a CPU without server", 4, 1, 0},
                  {"47 threads on 48 CPUs with a server", 47, 48, 1}};
    for (int i = 0; i < 3; i++) {
        uint64_t l = rcl_adaptive_effective(1000, RCL_PATH_LOCAL, shapes[i].threads, shapes[i].cpus,
                                            shapes[i].server_cpus);
        uint64_t dl = rcl_adaptive_effective(600, RCL_PATH_DELEGATE, shapes[i].threads,
                                             shapes[i].cpus, shapes[i].server_cpus);
        struct rcl_adaptive_state cs = {0};
        const uint64_t cost[2] = {l, dl};
        int de = 0;
        p = run(&cs, RCL_PATH_LOCAL, 200, cost, false, &de);
        printf("cpu share: %s: local %llu, delegated %llu -> %s\n", shapes[i].what,
               (unsigned long long)l, (unsigned long long)dl, name(p));
    }
    return 0;
}
