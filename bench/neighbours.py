#!/usr/bin/env python3
"""A program beside busy neighbours, in every mode (docs/benchmarks.md, "bench/neighbours.py").

Runs rcl-bench-neighbours (8 threads doing lock; n++; unlock; usleep(200) while the main thread
does 20 timed pops of 100 ms: 2 s) beside N CPU-bound processes of the same niceness, N = 0, 1,
2, 4 by default, as the original (pthread) and converted in RCL_MODE=local, adaptive and
delegate. Rounds interleave (5 by default): each round runs every N once, each N every mode
once, the modes' order rotated from round to round. Per N and mode: the median of the
sections done, and per round each mode's sections over the original's that ran beside it
(median [lowest-highest] over the rounds); the worst timed pop; and delegate mode's server:
the share of the time it wanted its CPU that it waited for it (RCL_STATS).

  bench/neighbours.py [--build DIR] [--out DIR] [--rounds N] [--busy 0,1,2,4] [--before DIR]
                      [--producers N] [--pops N] [--pop-ms N]   (the program's, passed on)
--before DIR runs, beside the others in each round, adaptive mode of another build's
rcl-bench-neighbours (an earlier commit's librcl): column "before".
Writes OUT/raw.csv, OUT/load.txt (the load average before and after each round) and
OUT/report.md; prints the report.
"""
import argparse
import csv
import io
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from rcltools import machine  # noqa: E402
import runfiles  # noqa: E402  (bench/ is the script's dir)

LOCKS = ["pthread", "rcl-local", "rcl-adaptive", "rcl"]
NAMES = {"pthread": "original", "rcl-local": "local", "rcl-adaptive": "adaptive",
         "rcl": "delegate"}
COLUMNS = ["busy", "lock", "producers", "wall_s", "sections", "sections_per_s", "worst_pop_ms",
           "late_pops", "server_preempted_pct"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="out/neighbours")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--busy", default="0,1,2,4")
    ap.add_argument("--before", help="another build directory: its adaptive mode beside")
    ap.add_argument("--producers", type=int, default=8)
    ap.add_argument("--pops", type=int, default=20)
    ap.add_argument("--pop-ms", type=int, default=100)
    ap.add_argument("--report-only", action="store_true", help="the report from OUT/raw.csv")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.report_only:
        report(a, *runfiles.read(a.out))
        return
    binary = os.path.join(a.build, "bench", "rcl-bench-neighbours")
    rows, loads = [], [machine.load1()]
    for rnd in range(a.rounds):
        for busy in a.busy.split(","):
            k = rnd % len(LOCKS)
            order = LOCKS[k:] + LOCKS[:k]
            print("round %d/%d: %s busy" % (rnd + 1, a.rounds, busy), file=sys.stderr, flush=True)
            runs = [(binary, order)]
            if a.before:  # the earlier build's adaptive mode, first or last in turn
                other = (os.path.join(a.before, "bench", "rcl-bench-neighbours"), ["rcl-adaptive"])
                runs = [other] + runs if rnd % 2 else runs + [other]
            for b, locks in runs:
                p = subprocess.run([b, "--no-header", "--busy", busy, "--locks", ",".join(locks),
                                    "--producers", str(a.producers), "--pops", str(a.pops),
                                    "--pop-ms", str(a.pop_ms)], capture_output=True, text=True)
                if p.returncode != 0:
                    sys.exit("bench/neighbours.py: %s failed: %s" % (b, p.stderr.strip()))
                for r in csv.DictReader(io.StringIO(p.stdout), fieldnames=COLUMNS):
                    if b != binary:
                        r["lock"] = "before"
                    rows.append(dict(r, round=rnd))
        loads.append(machine.load1())
    runfiles.save(a.out, ["round"] + COLUMNS, rows, loads)
    report(a, rows, loads)


def report(a, rows, loads):
    by = {}
    for r in rows:
        by.setdefault(int(r["busy"]), {}).setdefault(int(r["round"]), {})[r["lock"]] = r
    producers = rows[0]["producers"] if rows else "?"
    rep = ["# A program beside busy neighbours", "",
           "Machine: %s. `rcl-bench-neighbours` (%s threads `lock; n++; unlock; usleep(200)`, "
           "%d timed pops of %d ms) beside N CPU-bound processes of the same niceness; "
           "%d interleaved rounds, the modes' order rotated." % (
               machine.line(machine.describe()), producers, a.pops, a.pop_ms,
               len({r["round"] for r in rows}))]
    if loads:
        rep.append("Load average (1 min) before and after each round: %s." % ", ".join(loads))
    rep += ["", "Sections per run: the median over the rounds; x: per round, over the original "
            "that ran beside it, median [lowest-highest]. Worst pop: the longest of the 100 ms "
            "timed pops (%d ms) over all rounds. Server preempted: delegate mode's server, of the time "
            "it wanted its CPU the part it waited for it (RCL_STATS), median." % a.pop_ms, "",
            "| busy | original | local | adaptive | delegate | adaptive x | local x | "
            "delegate x | worst pop (ms) orig / adapt / deleg | server preempted |",
            "|---:|---:|---:|---:|---:|---|---|---|---|---:|"]
    before = []
    for busy in sorted(by):
        rounds = [by[busy][k] for k in sorted(by[busy]) if all(l in by[busy][k] for l in LOCKS)]
        med = {l: statistics.median(float(r[l]["sections"]) for r in rounds) for l in LOCKS}

        def x(lock):
            v = [float(r[lock]["sections"]) / float(r["pthread"]["sections"]) for r in rounds]
            return "%.2f [%.2f-%.2f]" % (statistics.median(v), min(v), max(v))

        worst = {l: max(float(r[l]["worst_pop_ms"]) for r in rounds) for l in LOCKS}
        pre = [float(r["rcl"]["server_preempted_pct"]) for r in rounds
               if r["rcl"].get("server_preempted_pct")]
        rep.append("| %d | %.0f | %.0f | %.0f | %.0f | %s | %s | %s | %.0f / %.0f / %.0f | %s |" % (
            busy, med["pthread"], med["rcl-local"], med["rcl-adaptive"], med["rcl"],
            x("rcl-adaptive"), x("rcl-local"), x("rcl"), worst["pthread"], worst["rcl-adaptive"],
            worst["rcl"], "%.0f %%" % statistics.median(pre) if pre else "?"))
        if all("before" in r for r in rounds):
            before.append("| %d | %.0f | %.0f | %s | %s |" % (
                busy, statistics.median(float(r["before"]["sections"]) for r in rounds),
                med["rcl-adaptive"], x("before"), x("rcl-adaptive")))
    if before:
        rep += ["", "Adaptive mode before (the --before build) and after, side by side:", "",
                "| busy | before | after | before x | after x |", "|---:|---:|---:|---|---|"]
        rep += before
    text = "\n".join(rep) + "\n"
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
