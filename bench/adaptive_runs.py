#!/usr/bin/env python3
"""Adaptive mode's decision, run after run (docs/benchmarks.md, "bench/adaptive_runs.py").

A user runs the program once and gets whichever decision that process took; a median over
rounds hides a run that decided badly. So each probe runs as N separate process runs (every
lock in a child process of its own, as rcl-bench-micro and rcl-bench-cond do), the probes and
runs interleaved, and the report gives, per probe, every run's adaptive / best -- the best of
pthread (the original, the local path) and rcl (RCL_MODE=delegate) -- with the worst run, the
median and the spread, not only the median:

  same run   adaptive over the best of the locks that ran beside it in that invocation;
  vs medians adaptive over the best of the other locks' medians over all runs (their own
             run-to-run noise left out: what is left is adaptive's, its decision's and the
             machine's in that run);
  control    the same two figures for rcl-local (RCL_MODE=local: the same converted program,
             no decision at all): how far the machine alone moves a run here.

Probes (--probes, default all):
  pool-1, pool-8  rcl-bench-cond's thread pool (4 workers waiting inside their section, 1 or 8
                  jobs in flight; pool-1 is libuv's queue_work)
  pc-2, pc-4      rcl-bench-cond's bounded producer/consumer queue, 2 or 4 threads
  biglittle-2/-4  emulated big/little (CPU 0 little, 4x slower), threads unpinned, 4,000-cycle
                  sections: the lock is crowded (the server takes a CPU the threads use)
  asym-4          emulated asymmetry with the program's 4 threads on the little CPU
                  (--clients-on 0): delegation must win
  steady-2/-4     rcl-bench-micro at a steady state: 2 or 4 threads, delay 100, 5 lines

  bench/adaptive_runs.py [--build DIR] [--out DIR] [--runs N] [--seconds S] [--probes LIST]
                         [--log] [--before DIR]
--before DIR also runs, in each run, adaptive mode of another build's benchmark binaries (an
earlier commit's: before / after side by side, the same figures for both).
--log writes each adaptive run's decisions to OUT/log/PROBE.RUN (RCL_ADAPTIVE_LOG, one line per
decision: docs/runtime.md): what each run decided, when, and on what measures; the report then
adds, per run, which of pthread and rcl did better beside it and the share of the run adaptive
spent delegating (its most delegated lock).
The machine's state: a VM whose two vCPUs the host places apart (another core complex, another
socket) passes a cache line between them 4x slower for seconds at a time, and every lock
hand-over with it (2-vCPU EPYC VM: 55-85 -> 400-425 ns round trip, the original's calls per
second halved), whatever the configuration. So each run of each probe is bracketed by a cross-CPU
round trip (rcl-bench-probes --pingpong, 3 x 200,000 round trips, ~0.1 s), written to
OUT/machine.csv; a run *held* when both stayed within 1.5x of the batch's lower quartile of
round trips (its usual good state, even where the slow state lasts most of a batch).
The report gives every figure over all runs, then again over the held runs.
Writes OUT/raw.csv (one row per run and lock), OUT/load.txt (the load average before and after
each run), OUT/machine.csv and OUT/report.md; prints the report.
"""
import argparse
import csv
import io
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from rcltools import machine  # noqa: E402
import runfiles  # noqa: E402  (bench/ is the script's dir)

LOCKS = ["pthread", "rcl", "rcl-local", "rcl-adaptive"]
BEST_OF = ["pthread", "rcl"]  # the better of local (the original program) and delegate
BIGLITTLE = ["--little", "0", "--slowdown", "4", "--cs-cycles", "4000", "--lines", "5",
             "--delay", "100"]
# (name, binary, arguments, seconds: None = --seconds)
PROBES = [
    ("pool-1", "rcl-bench-cond", ["--shapes", "pool", "--inflight", "1", "--threads", "4"], None),
    ("pool-8", "rcl-bench-cond", ["--shapes", "pool", "--inflight", "8", "--threads", "4"], None),
    ("pc-2", "rcl-bench-cond", ["--shapes", "pc", "--threads", "2"], None),
    ("pc-4", "rcl-bench-cond", ["--shapes", "pc", "--threads", "4"], None),
    ("biglittle-2", "rcl-bench-micro", BIGLITTLE + ["--threads", "2"], 1.5),
    ("biglittle-4", "rcl-bench-micro", BIGLITTLE + ["--threads", "4"], 1.5),
    ("asym-4", "rcl-bench-micro", BIGLITTLE + ["--clients-on", "0", "--threads", "4"], None),
    ("steady-2", "rcl-bench-micro", ["--threads", "2", "--delay", "100", "--lines", "5"], None),
    ("steady-4", "rcl-bench-micro", ["--threads", "4", "--delay", "100", "--lines", "5"], None),
]


def throughputs(out):
    """{lock: throughput} from either benchmark's CSV (the lock first, the throughput the
    column named so: rcl-bench-cond's sixth, rcl-bench-micro's fifth)."""
    res = {}
    for row in csv.reader(io.StringIO(out)):
        if not row:
            continue
        col = 5 if row[0] in ("pool", "pc") else 4
        lock = row[1] if col == 5 else row[0]
        res[lock] = float(row[col])
    return res


def invoke(build, binary, args, locks, seconds, env=None):
    cmd = [os.path.join(build, "bench", binary), "--no-header", "--seconds", str(seconds),
           "--locks", ",".join(locks)] + args
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit("bench/adaptive_runs.py: %s failed (%d): %s" % (" ".join(cmd), p.returncode,
                                                                  p.stderr.strip()))
    return throughputs(p.stdout), p.stderr


HELD = 1.5  # a run held: its round trips within this factor of the batch's lower quartile


def round_trip(build):
    """The cross-CPU cache-line round trip now, in ns (rcl-bench-probes --pingpong)."""
    cmd = [os.path.join(build, "bench", "rcl-bench-probes"), "--pingpong", "--reps", "3"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench/adaptive_runs.py: %s failed (%d): %s" % (" ".join(cmd), p.returncode,
                                                                  p.stderr.strip()))
    return float(p.stdout)


def read_machine(out):
    """{(probe, run): (rtt before, rtt after)} from OUT/machine.csv ({} for an older run)."""
    path = os.path.join(out, "machine.csv")
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        return {(r["probe"], int(r["run"])): (float(r["rtt_before_ns"]), float(r["rtt_after_ns"]))
                for r in csv.DictReader(f)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="out/adaptive-runs")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--probes", default=",".join(p[0] for p in PROBES))
    ap.add_argument("--log", action="store_true")
    ap.add_argument("--before", help="another build directory: its adaptive mode beside this one")
    ap.add_argument("--report-only", action="store_true", help="the report from OUT/raw.csv")
    a = ap.parse_args()
    want = a.probes.split(",")
    unknown = [w for w in want if w not in [p[0] for p in PROBES]]
    if unknown:
        sys.exit("bench/adaptive_runs.py: unknown probe(s) %s" % ",".join(unknown))
    probes = [p for p in PROBES if p[0] in want]
    os.makedirs(a.out, exist_ok=True)
    if a.report_only:
        report(a, *runfiles.read(a.out))
        return
    if len(os.sched_getaffinity(0)) < 2:
        sys.exit("bench/adaptive_runs.py: needs 2 CPUs or more")
    rows, loads, rtts = [], [machine.load1()], []
    if a.log:
        os.makedirs(os.path.join(a.out, "log"), exist_ok=True)
    for run in range(a.runs):
        for i, (name, binary, args, secs) in enumerate(probes):
            # rotate the locks' order from run to run: no lock always runs first or last
            k = (run + i) % len(LOCKS)
            order = LOCKS[k:] + LOCKS[:k]
            print("run %d/%d: %s" % (run + 1, a.runs, name), file=sys.stderr, flush=True)
            rtt0 = round_trip(a.build)
            before = None
            if a.before and run % 2:  # before the others in odd runs, after in even ones
                before, _ = invoke(a.before, binary, args, ["rcl-adaptive"], secs or a.seconds)
            env = None
            if a.log:
                path = os.path.join(a.out, "log", "%s.%d" % (name, run))
                if os.path.exists(path):
                    os.unlink(path)
                env = dict(os.environ, RCL_ADAPTIVE_LOG=path)
            res, _ = invoke(a.build, binary, args, order, secs or a.seconds, env)
            if a.before and not run % 2:
                before, _ = invoke(a.before, binary, args, ["rcl-adaptive"], secs or a.seconds)
            if before:
                res["before"] = before["rcl-adaptive"]
            rtts.append({"probe": name, "run": run, "rtt_before_ns": rtt0,
                         "rtt_after_ns": round_trip(a.build)})
            for lock in LOCKS + (["before"] if before else []):
                rows.append({"probe": name, "run": run, "lock": lock,
                             "throughput_ops_s": res[lock]})
        loads.append(machine.load1())
    runfiles.save(a.out, ["probe", "run", "lock", "throughput_ops_s"], rows, loads)
    with open(os.path.join(a.out, "machine.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, ["probe", "run", "rtt_before_ns", "rtt_after_ns"])
        w.writeheader()
        w.writerows(rtts)
    report(a, rows, loads)


def ratios(runs, lock, med):
    """Per run: lock / best of BEST_OF in the same run, and lock / best of BEST_OF's medians."""
    best_med = max(med[b] for b in BEST_OF)
    same = [r[lock] / max(r[b] for b in BEST_OF) for r in runs]
    vs_med = [r[lock] / best_med for r in runs]
    return same, vs_med


def fmt(vals):
    return "%.2f / %.2f / %.2f" % (min(vals), statistics.median(vals), max(vals))


def delegated_share(path):
    """The share of the logged run that its most delegated lock spent on the server (None: no
    log directory; -1: no decision logged, no epoch ended). Each line: 'T ms lock N PATH ... ->
    NEXT (reason)'; a lock is on NEXT until its next line."""
    if not os.path.exists(path):
        return -1.0 if os.path.isdir(os.path.dirname(path)) else None
    locks, end = {}, 0.0
    with open(path) as f:
        for line in f:
            m = re.match(r"([\d.]+) ms lock (\d+) \S+ .* -> (\S+) \(", line)
            if not m:
                continue
            t, lock, after = float(m.group(1)), m.group(2), m.group(3)
            last, path_now, total = locks.get(lock, (0.0, "local", 0.0))
            if path_now.startswith("delegate"):
                total += t - last
            locks[lock] = (t, after, total)
            end = max(end, t)
    if not locks or end <= 0:
        return 0.0
    return max(total for _, _, total in locks.values()) / end


def report(a, rows, loads):
    by = {}
    for r in rows:
        by.setdefault(r["probe"], {}).setdefault(int(r["run"]), {})[r["lock"]] = \
            float(r["throughput_ops_s"])
    m = machine.describe()
    rep = ["# Adaptive mode, run after run", "",
           "Machine: %s. %d separate process runs per probe, probes and runs interleaved, "
           "the locks' order rotated; %.2f s per configuration (biglittle 1.5 s)." % (
               machine.line(m), len({r["run"] for r in rows}), a.seconds)]
    if loads:
        rep.append("Load average (1 min) before and after each run: %s." % ", ".join(loads))
    rep += ["", "Ratios: adaptive (or the control, rcl-local) over the better of pthread (the "
            "original) and rcl (delegate); *worst / median / best* over the runs. *same run*: "
            "over the locks that ran beside it in that invocation; *vs medians*: over the "
            "better of their medians over all runs.", "",
            "| probe | pthread | rcl | rcl-local | rcl-adaptive | adaptive, same run | "
            "adaptive, vs medians | control rcl-local, same run | control, vs medians |",
            "|---|---:|---:|---:|---:|---|---|---|---|"]
    worst_ok = med_ok = 0
    before_rows = []
    for name in [p[0] for p in PROBES if p[0] in by]:
        runs = [by[name][k] for k in sorted(by[name])]
        med = {l: statistics.median(r[l] for r in runs) for l in LOCKS}
        ad_same, ad_med = ratios(runs, "rcl-adaptive", med)
        lo_same, lo_med = ratios(runs, "rcl-local", med)
        worst_ok += min(ad_same) >= 0.9
        med_ok += statistics.median(ad_same) >= 0.95
        rep.append("| %s | %.0f | %.0f | %.0f | %.0f | %s | %s | %s | %s |" % (
            name, med["pthread"], med["rcl"], med["rcl-local"], med["rcl-adaptive"],
            fmt(ad_same), fmt(ad_med), fmt(lo_same), fmt(lo_med)))
        if all("before" in r for r in runs):
            b_same, b_med = ratios(runs, "before", med)
            before_rows.append("| %s | %.0f | %.0f | %s | %s | %s | %s |" % (
                name, statistics.median(r["before"] for r in runs), med["rcl-adaptive"],
                fmt(b_same), fmt(ad_same), fmt(b_med), fmt(ad_med)))
    n = len(by)
    rep += ["", "Same run: %d of %d probes with every run >= 0.90, %d of %d with the median "
            ">= 0.95." % (worst_ok, n, med_ok, n), ""]
    rtt = read_machine(a.out)
    held = {}
    if rtt:
        every = sorted(v for pair in rtt.values() for v in pair)
        ref = every[len(every) // 4]  # the lower quartile: the machine's usual good state
        held = {k: max(v) <= HELD * ref for k, v in rtt.items()}
        rep += ["The machine: the cross-CPU round trip around each run (rcl-bench-probes "
                "--pingpong): lower quartile %.0f ns, median %.0f, highest %.0f; %d of %d runs "
                "*held* (before and after within %.1fx of the lower quartile). Over the held "
                "runs only:" % (ref, statistics.median(every), every[-1], sum(held.values()),
                                len(held), HELD), "",
                "| probe | runs held | adaptive, same run | control rcl-local, same run |",
                "|---|---:|---|---|"]
        h_worst = h_med = h_n = 0
        for name in [p[0] for p in PROBES if p[0] in by]:
            runs = [by[name][k] for k in sorted(by[name]) if held.get((name, k))]
            if not runs:
                rep.append("| %s | 0 | | |" % name)
                continue
            med = {l: statistics.median(r[l] for r in runs) for l in LOCKS}
            ad_same, _ = ratios(runs, "rcl-adaptive", med)
            lo_same, _ = ratios(runs, "rcl-local", med)
            h_n += 1
            h_worst += min(ad_same) >= 0.9
            h_med += statistics.median(ad_same) >= 0.95
            rep.append("| %s | %d | %s | %s |" % (name, len(runs), fmt(ad_same), fmt(lo_same)))
        rep += ["", "Held runs: %d of %d probes with every run >= 0.90, %d of %d with the median "
                ">= 0.95." % (h_worst, h_n, h_med, h_n), ""]
    if before_rows:
        rep += ["Before (--before, the other build's adaptive mode, run in the same runs) and "
                "after (this build):", "",
                "| probe | before | after | before, same run | after, same run | before, vs "
                "medians | after, vs medians |", "|---|---:|---:|---|---|---|---|"]
        rep += before_rows + [""]
    rep += ["Every run, adaptive / best (same run)%s:" % (
        "; * a run the machine did not hold" if held else ""), ""]
    for name in [p[0] for p in PROBES if p[0] in by]:
        ks = sorted(by[name])
        same = [by[name][k]["rcl-adaptive"] / max(by[name][k][b] for b in BEST_OF) for k in ks]
        rep.append("- %s: %s" % (name, " ".join(
            "%.2f%s" % (x, "*" if held and not held.get((name, k)) else "")
            for k, x in zip(ks, same))))
    shares = {name: [delegated_share(os.path.join(a.out, "log", "%s.%d" % (name, k)))
                     for k in sorted(by[name])] for name in by}
    if any(v is not None for vs in shares.values() for v in vs):
        rep += ["", "Every run's decision (--log): the better of pthread (L) and rcl (D) beside "
                "it, and the share of the run adaptive's most delegated lock spent on the "
                "server (none: no epoch ended, no decision):", ""]
        for name in [p[0] for p in PROBES if p[0] in by]:
            runs = [by[name][k] for k in sorted(by[name])]
            rep.append("- %s: %s" % (name, " ".join(
                "%s %s" % ("D" if r["rcl"] > r["pthread"] else "L",
                           "?" if v is None else "none" if v < 0 else "%.0f%%" % (100 * v))
                for r, v in zip(runs, shares[name]))))
    text = "\n".join(rep) + "\n"
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
