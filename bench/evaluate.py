#!/usr/bin/env python3
"""The whole lock evaluation in one command (docs/benchmarks.md); bench/run.sh calls this.

Runs, in one sitting, interleaved round by round (each round runs every lock once per set):
  probes       rcl-bench-probes --json: ping-pong, delegation RTT, server capacity of rcl,
               ffwd and CC-Synch's combiner
  contention   2 threads, every lock, delay x cache lines
  oversub      threads 1..16 on this machine's CPUs, every lock: throughput, p99, CPU time
  asym         emulated big/little (--little 0 --slowdown 4) next to the same run symmetric,
               and the program's threads all on the little CPU with long critical sections
Each figure is the median over the rounds (5 by default, 1 with --quick). Writes to OUT:
raw.csv (every round), results.csv (medians), probes.json, machine.json, *.svg plots and
report.md. Exits 1 when a configuration failed (a self-check included); the failures are
listed in the report and on stderr.
"""
import argparse
import csv
import glob
import io
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from rcltools import machine  # noqa: E402  (the shared modules: python/rcltools)

LOCKS = ["pthread", "tas", "ticket", "mcs", "clh", "mutexee", "ccsynch", "ffwd", "rcl",
         "rcl-local", "rcl-adaptive"]
ASYM_LOCKS = ["pthread", "tas", "mcs", "mutexee", "ccsynch", "ffwd", "rcl", "rcl-adaptive"]
BASE_COLUMNS = ["lock", "threads", "delay_cycles", "cs_lines", "throughput_ops_s", "p50_ns",
                "p99_ns", "cpu_s", "wall_s", "cpu_s_per_mop", "joules_per_mop", "little_share",
                "big_p99_ns", "little_p99_ns"]
KEY = ["set", "lock", "threads", "delay_cycles", "cs_lines"]
SLOWDOWN = 4


def plan(quick, ncpus):
    """The micro invocations of one round: (set name, extra arguments)."""
    secs = "0.1" if quick else "0.5"
    common = ["--seconds", secs, "--no-header"]
    little = "0"
    sets = [
        ("contention", ["--locks", ",".join(LOCKS), "--threads", "2",
                        "--delay", "100" if quick else "100,1000",
                        "--lines", "5" if quick else "1,5,20"]),
        ("oversub", ["--locks", ",".join(LOCKS), "--threads", "1,4,16" if quick else "1,2,4,8,16",
                     "--delay", "100", "--lines", "5"]),
        ("asym-symmetric", ["--locks", ",".join(ASYM_LOCKS), "--threads", "4" if quick else "2,4",
                            "--delay", "1000", "--lines", "5"]),
    ]
    if ncpus > 1:  # one CPU left big at least
        sets.append(("asym-emulated", sets[-1][1] + ["--little", little,
                                                     "--slowdown", str(SLOWDOWN)]))
        # The program's threads on the little CPU, long critical sections (4,000 cycles of
        # compute): the serial part is what a fast core should run (CF'10).
        sets.append(("asym-program-on-little",
                     ["--locks", ",".join(ASYM_LOCKS), "--threads", "4" if quick else "2,4",
                      "--delay", "100", "--lines", "5", "--cs-cycles", "4000",
                      "--little", little, "--clients-on", little,
                      "--slowdown", str(SLOWDOWN)]))
    return [(name, args + common) for name, args in sets]


def machine_info(build):
    # The shared machine description, with the CPUs this run may use (its affinity) as cpus.
    info = dict(machine.describe(), date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    info["cpus"] = len(os.sched_getaffinity(0))
    nodes = glob.glob("/sys/devices/system/node/node[0-9]*")
    info["numa_nodes"] = len(nodes) or 1
    # Core kinds: hybrid Intel parts list cpu_core/cpu_atom PMUs; arm lists cpu_capacity.
    caps = set()
    for f in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpu_capacity"):
        try:
            caps.add(open(f).read().strip())
        except OSError:
            pass
    hybrid = [k for k in ("cpu_core", "cpu_atom") if os.path.exists("/sys/devices/" + k)]
    info["core_kinds"] = max(len(caps), len(hybrid), 1)
    rapl = glob.glob("/sys/class/powercap/intel-rapl:*/energy_uj")
    info["rapl"] = "readable" if any(os.access(f, os.R_OK) for f in rapl) else (
        "present, unreadable" if rapl else "absent")
    info["load_start"] = os.getloadavg()
    return info


def run(cmd, log):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.stderr:
        log.write(proc.stderr)
    return proc


def median_rows(rows):
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in KEY), []).append(r)
    out = []
    for key, rs in groups.items():
        m = dict(zip(KEY, key))
        m["rounds"] = len(rs)
        for col in BASE_COLUMNS[4:]:
            vals = [float(r[col]) for r in rs if r[col] != ""]
            m[col] = "" if not vals else "%.6g" % statistics.median(vals)
        out.append(m)
    return out


def num(r, col):
    return float(r[col]) if r.get(col, "") != "" else None


def bars(ax, names, groups, ylabel, title):
    """Grouped bars on a log scale: groups is [(label, one value or None per name)]."""
    width = 0.8 / len(groups)
    for i, (label, ys) in enumerate(groups):
        ax.bar([x + i * width for x in range(len(names))], [y or 0 for y in ys], width,
               label=label)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(names))], names, rotation=45,
                  fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)


def save(plt, fig, out, name):
    fig.tight_layout()
    fig.savefig(os.path.join(out, name))
    plt.close(fig)
    return name


def plots(results, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ["(matplotlib missing: install python3-matplotlib for the plots)"]
    made = []
    over = [r for r in results if r["set"] == "oversub"]
    for col, label, fname in [("throughput_ops_s", "critical sections / s", "oversub_throughput"),
                              ("p99_ns", "worst thread's p99 latency (ns)", "oversub_p99"),
                              ("cpu_s_per_mop", "CPU-seconds per million CS (proxy)",
                               "oversub_cpu")]:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for i, lock in enumerate(LOCKS):  # 11 locks: tab20's colours, and markers, stay distinct
            pts = sorted((int(r["threads"]), num(r, col)) for r in over if r["lock"] == lock)
            pts = [(t, v) for t, v in pts if v is not None and v > 0]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="osD^v<>ph*X"[i],
                        color=plt.cm.tab20.colors[(2 * i) % 20 + (i >= 10)], label=lock)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("threads (on %d CPUs)" % len(os.sched_getaffinity(0)))
        ax.set_ylabel(label)
        ax.set_title("Oversubscription: " + label)
        ax.legend(fontsize=7, ncol=2)
        made.append(save(plt, fig, out, fname + ".svg"))
    cont = [r for r in results if r["set"] == "contention"]
    if cont:
        confs = sorted({(int(r["delay_cycles"]), int(r["cs_lines"])) for r in cont})
        fig, ax = plt.subplots(figsize=(8, 4.5))
        groups = []
        for d, l in confs:
            by_lock = {r["lock"]: num(r, "throughput_ops_s") for r in cont
                       if int(r["delay_cycles"]) == d and int(r["cs_lines"]) == l}
            groups.append(("delay %d, %d lines" % (d, l), [by_lock.get(k) for k in LOCKS]))
        bars(ax, LOCKS, groups, "critical sections / s", "Contention, 2 threads")
        made.append(save(plt, fig, out, "contention.svg"))
    asym = {(r["set"], r["lock"], r["threads"]): r for r in results if r["set"].startswith("asym")}
    if any(k[0] == "asym-emulated" for k in asym):
        threads = str(max(int(k[2]) for k in asym))

        def col(s, c):
            return [num(asym.get((s, k, threads), {}), c) for k in ASYM_LOCKS]

        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.5))
        bars(ax1, ASYM_LOCKS, [("symmetric", col("asym-symmetric", "throughput_ops_s")),
                               ("CPU 0 little (x%d, emulated)" % SLOWDOWN,
                                col("asym-emulated", "throughput_ops_s"))],
             "critical sections / s", "%s threads: symmetric vs emulated" % threads)
        bars(ax2, ASYM_LOCKS, [("big callers", col("asym-emulated", "big_p99_ns")),
                               ("little callers", col("asym-emulated", "little_p99_ns"))],
             "p99 latency (ns)", "emulated big/little: p99 per core class")
        made.append(save(plt, fig, out, "asymmetry.svg"))
    return made


def fmt(v, digits=0):
    if v is None:
        return "–"
    if v >= 1e12:
        return "starved"  # rcl-bench-micro's p99 of a thread that never got in
    if abs(v) >= 1e6:
        return "%.2f M" % (v / 1e6)
    return ("%." + str(digits) + "f") % v


def table(rows, cols, headers):
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for r in rows:
        lines.append("| " + " | ".join(c(r) if callable(c) else str(r.get(c, ""))
                                        for c in cols) + " |")
    return "\n".join(lines)


def get(results, s, lock, threads, col):
    for r in results:
        if r["set"] == s and r["lock"] == lock and int(r["threads"]) == threads:
            return num(r, col)
    return None


def ratio_text(a, b):
    return "–" if a is None or not b else "%.2f" % (a / b)


def readings(results, probes, info):
    """A short, data-driven reading of each research claim; every figure from this run."""
    out = []
    t = max([int(r["threads"]) for r in results if r["set"] == "asym-emulated"] or [0])
    if t:
        def asym(lock, col):  # emulated / symmetric, same lock, same thread count
            return ratio_text(get(results, "asym-emulated", lock, t, col),
                              get(results, "asym-symmetric", lock, t, col))

        out.append(
            "- **LibASL (PPoPP'22): MCS throughput collapses (> 50 %%) and TAS tail latency "
            "collapses when little cores join.** EMULATED here (CPU 0 declared little, its work "
            "x%d, %d threads unpinned), emulated/symmetric: MCS throughput %s, TAS p99 %s "
            "(TAS p99 of big callers %s ns, of little callers %s ns). With 2 CPUs the little "
            "half is one CPU, and the slowdown is a TSC-timed spin: the hand-over cost of a "
            "queue lock to a slow waiter is modelled, cache effects of a real little core are "
            "not."
            % (SLOWDOWN, t, asym("mcs", "throughput_ops_s"), asym("tas", "p99_ns"),
               fmt(get(results, "asym-emulated", "tas", t, "big_p99_ns")),
               fmt(get(results, "asym-emulated", "tas", t, "little_p99_ns"))))
        out.append(
            "- **Parallelism-aware placement (CF'10): run the serial part on the fast core.** "
            "rcl's and ffwd's servers run on the big CPU (RCL_CPU_KINDS; ffwd pinned), so their "
            "critical sections run at big speed. EMULATED, emulated/symmetric throughput: rcl "
            "%s, rcl-adaptive %s, ffwd %s, pthread %s, mcs %s, ccsynch %s. rcl's clients are "
            "kept off the server's CPU, so here they all run on the little one (rcl "
            "little_share %s) and their local work pays the slowdown."
            % tuple([asym(k, "throughput_ops_s") for k in
                     ("rcl", "rcl-adaptive", "ffwd", "pthread", "mcs", "ccsynch")] +
                    [fmt(get(results, "asym-emulated", "rcl", t, "little_share"), 3)]))
    t2 = max([int(r["threads"]) for r in results if r["set"] == "asym-program-on-little"] or [0])
    if t2:
        def little(lock):
            return get(results, "asym-program-on-little", lock, t2, "throughput_ops_s")

        out.append(
            "- **The same claim where it should show: the program's %d threads all on the "
            "little CPU, critical sections of 4,000 cycles of compute (x%d there).** EMULATED. "
            "Throughput / pthread's: rcl %s, rcl-adaptive %s, ffwd %s, ccsynch %s, mutexee %s "
            "(pthread %s ops/s). Delegation runs each section at big speed; the local locks run "
            "it on the little CPU."
            % (t2, SLOWDOWN, ratio_text(little("rcl"), little("pthread")),
               ratio_text(little("rcl-adaptive"), little("pthread")),
               ratio_text(little("ffwd"), little("pthread")),
               ratio_text(little("ccsynch"), little("pthread")),
               ratio_text(little("mutexee"), little("pthread")), fmt(little("pthread"))))
    over = [r for r in results if r["set"] == "oversub"]
    if over:
        tmax = max(int(r["threads"]) for r in over)
        tmin = min(int(r["threads"]) for r in over if int(r["threads"]) >= 2) if any(
            int(r["threads"]) >= 2 for r in over) else tmax
        parts = []
        for lock in ["pthread", "mutexee", "mcs", "tas", "ccsynch", "ffwd", "rcl",
                     "rcl-adaptive"]:
            parts.append("%s %s" % (lock, ratio_text(
                get(results, "oversub", lock, tmax, "throughput_ops_s"),
                get(results, "oversub", lock, tmin, "throughput_ops_s"))))
        out.append(
            "- **CST (ATC'17) / RCL: oversubscription makes spinning locks collapse; a "
            "dedicated server keeps making progress.** Throughput at %d threads / at %d "
            "threads on %d CPUs: %s. A ratio far below 1 is a collapse."
            % (tmax, tmin, info["cpus"], ", ".join(parts)))
        mx = get(results, "oversub", "mutexee", tmax, "cpu_s_per_mop")
        tx = get(results, "oversub", "tas", tmax, "cpu_s_per_mop")
        px = get(results, "oversub", "pthread", tmax, "cpu_s_per_mop")
        out.append(
            "- **MUTEXEE (ATC'16): spin about a futex round trip, then park; energy follows "
            "CPU time.** No RAPL here (%s), so the proxy is CPU-seconds per million critical "
            "sections (not energy): at %d threads mutexee %s, pthread %s, tas %s. The futex "
            "wake-up this run measured: %s ns (mutexee spins 20 µs by default)."
            % (info["rapl"], tmax, fmt(mx, 3), fmt(px, 3), fmt(tx, 3),
               fmt(probes.get("futex_wake_ns"))))
    if probes:
        out.append(
            "- **ffwd (SOSP'17): a dedicated spin-only server serves ~55 M requests/s, ~40 "
            "cycles each.** Same run, same server CPU: rcl %s cycles/request, ffwd %s "
            "cycles/request, CC-Synch's combiner %s cycles per request it ran (%s per round); "
            "cache-line ping-pong %s ns."
            % (fmt(probes.get("server_cycles_per_request"), 1),
               fmt(probes.get("ffwd_server_cycles_per_request"), 1),
               fmt(probes.get("ccsynch_combiner_cycles_per_request"), 1),
               fmt(probes.get("ccsynch_requests_per_round"), 2),
               fmt(probes.get("pingpong_rtt_ns"), 1)))
    return out


def report(out, info, probes, results, made, failures, args, rounds):
    r = []
    r.append("# Lock evaluation report%s\n" % (" (quick: 1 round, short runs)" if args.quick else ""))
    r.append("Generated by `bench/run.sh%s -o %s`. Every figure is the median of %d round(s), "
             "locks interleaved within each round.\n"
             % (" --quick" if args.quick else "", args.out, rounds))
    r.append("## Machine\n")
    r.append(table([info], ["cpu_model", "cpus", "core_kinds", "numa_nodes", "kernel", "rapl",
                            lambda i: "%.1f → %.1f" % (i["load_start"][0], i["load_end"][0]),
                            "date"],
                   ["CPU", "CPUs", "core kinds", "NUMA nodes", "kernel", "RAPL",
                    "load avg (1 min) start → end", "date"]) + "\n")
    r.append("Energy: %s. `cpu_s_per_mop` is CPU-seconds per million critical sections, a "
             "proxy, **not energy**; `joules_per_mop` is empty where RAPL is absent.\n"
             % ("RAPL is readable: joules_per_mop is measured" if info["rapl"] == "readable"
                else "RAPL is " + info["rapl"]))
    if failures:
        r.append("## FAILURES\n")
        r.extend("- %s\n" % f for f in failures)
    r.append("## Reading of the research claims (this machine, this run)\n")
    r.extend(line + "\n" for line in readings(results, probes, info))
    if probes:
        r.append("\n## Probes (`rcl-bench-probes --json`)\n")
        keys = ["pingpong_rtt_ns", "delegate_rtt_ns", "server_cycles_per_request",
                "server_mrequests_s", "ffwd_server_cycles_per_request", "ffwd_mrequests_s",
                "ccsynch_combiner_cycles_per_request", "ccsynch_requests_per_round",
                "ccsynch_ns_per_cs", "futex_wake_ns"]
        r.append(table([probes], keys, keys) + "\n")
    cols = ["lock", "threads", "delay_cycles", "cs_lines",
            lambda x: fmt(num(x, "throughput_ops_s")), "p50_ns", lambda x: fmt(num(x, "p99_ns")),
            "cpu_s_per_mop",
            "joules_per_mop"]
    heads = ["lock", "threads", "delay", "lines", "CS/s", "p50 ns", "p99 ns (worst thread)",
             "CPU-s/M CS (proxy)", "J/M CS"]
    for s, title in [("contention", "Contention, 2 threads"),
                     ("oversub", "Oversubscription (threads on %d CPUs)" % info["cpus"])]:
        rows = [x for x in results if x["set"] == s]
        rows.sort(key=lambda x: (int(x["threads"]), int(x["delay_cycles"]), int(x["cs_lines"]),
                                 LOCKS.index(x["lock"])))
        r.append("\n## %s\n" % title)
        r.append(table(rows, cols, heads) + "\n")
    rows = [x for x in results if x["set"].startswith("asym")]
    if rows:
        rows.sort(key=lambda x: (int(x["threads"]), x["set"], ASYM_LOCKS.index(x["lock"])))
        r.append("\n## Asymmetry, EMULATED (CPU 0 declared little, x%d slowdown; servers on "
                 "the big CPU)\n" % SLOWDOWN)
        r.append("Emulated on a symmetric machine: a thread on the little CPU spins K times as "
                 "long for its work (TSC-timed), as the papers emulated with frequency "
                 "scaling. `asym-symmetric` is the same run with no CPU declared little.\n")
        r.append(table(rows, ["set", "lock", "threads",
                              lambda x: fmt(num(x, "throughput_ops_s")), "p99_ns",
                              "little_share", "big_p99_ns", "little_p99_ns", "cpu_s_per_mop"],
                       ["set", "lock", "threads", "CS/s", "p99 ns", "little share",
                        "big p99 ns", "little p99 ns", "CPU-s/M CS"]) + "\n")
    r.append("\n## Plots\n")
    r.extend("![%s](%s)\n" % (m, m) if m.endswith(".svg") else m + "\n" for m in made)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(r))


def main():
    ap = argparse.ArgumentParser(prog="bench/run.sh", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="1 round of 0.1 s runs and fewer configurations (about a minute)")
    ap.add_argument("-o", "--out", help="output folder (default BUILD/bench-results)")
    ap.add_argument("--build", default="build", help="the build folder, with bench/ built in it (default build)")
    ap.add_argument("--rounds", type=int, help="rounds per configuration (default 5, quick 1)")
    args = ap.parse_args()
    rounds = args.rounds or (1 if args.quick else 5)
    args.out = args.out or os.path.join(args.build, "bench-results")
    micro = os.path.join(args.build, "bench", "rcl-bench-micro")
    probes_bin = os.path.join(args.build, "bench", "rcl-bench-probes")
    for b in (micro, probes_bin):
        if not os.access(b, os.X_OK):
            sys.exit("evaluate: %s not built (ninja -C %s)" % (b, args.build))
    os.makedirs(args.out, exist_ok=True)
    log = open(os.path.join(args.out, "stderr.log"), "w")
    info = machine_info(args.build)
    failures = []
    sets = plan(args.quick, info["cpus"])
    steps = rounds * (len(sets) + 1)
    step = 0
    raw = []
    probe_runs = []
    started = time.time()
    for rnd in range(1, rounds + 1):
        step += 1
        print("[%d/%d] round %d/%d: probes" % (step, steps, rnd, rounds), flush=True)
        p = run([probes_bin, "--json", "--reps", "1"], log)
        if p.returncode:
            failures.append("rcl-bench-probes exited %d" % p.returncode)
        else:
            probe_runs.append(json.loads(p.stdout))
        for name, extra in sets:
            step += 1
            print("[%d/%d] round %d/%d: %s (%.0f s so far)"
                  % (step, steps, rnd, rounds, name, time.time() - started), flush=True)
            p = run([micro] + extra, log)
            for line in p.stderr.splitlines():  # the micro's own failure lines, not rcl warnings
                if "self-check failed" in line or (line.startswith("rcl-bench-micro:")
                                                   and line.endswith("failed")):
                    failures.append("%s round %d: %s" % (name, rnd, line.strip()))
            if p.returncode and not any(name in f for f in failures):
                failures.append("%s round %d: rcl-bench-micro exited %d"
                                % (name, rnd, p.returncode))
            for row in csv.DictReader(io.StringIO(p.stdout), fieldnames=BASE_COLUMNS):
                row.update({"set": name, "round": rnd})
                raw.append(row)
    info["load_end"] = os.getloadavg()
    results = median_rows(raw)
    probes = {}
    for k in (probe_runs[0] if probe_runs else {}):
        vals = [pr[k] for pr in probe_runs if isinstance(pr.get(k), (int, float))
                and not isinstance(pr.get(k), bool)]
        probes[k] = statistics.median(vals) if vals else probe_runs[0][k]
    with open(os.path.join(args.out, "raw.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, ["set", "round"] + BASE_COLUMNS)
        w.writeheader()
        w.writerows(raw)
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, KEY + ["rounds"] + BASE_COLUMNS[4:])
        w.writeheader()
        w.writerows(results)
    json.dump(probes, open(os.path.join(args.out, "probes.json"), "w"), indent=1)
    json.dump(info, open(os.path.join(args.out, "machine.json"), "w"), indent=1)
    made = plots(results, args.out)
    report(args.out, info, probes, results, made, failures, args, rounds)
    print("wrote %s/report.md, results.csv, raw.csv, %d plots in %.0f s; load %.1f → %.1f"
          % (args.out, len([m for m in made if m.endswith(".svg")]), time.time() - started,
             info["load_start"][0], info["load_end"][0]))
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
