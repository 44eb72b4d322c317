#!/usr/bin/env python3
"""The adaptive runtime's benchmarks (docs/benchmarks.md, "Adaptive mode"), in one sitting.

  grid      pthread, rcl, rcl-adaptive over threads 1,2,4,8 x cs_lines 1,5,20 x delay 100,1000:
            per point adaptive / max(pthread, rcl) throughput and the three p99s
  asym      where delegation must win: emulated asymmetry (CPU 0 little, K times slower; the
            program's threads confined to it with --clients-on; the server on the big CPU),
            critical sections of --cs-cycles 4000 plus 5 lines; K = 1, 2, 4; threads 1..8
  waiting   the same asymmetric setting (K = 4), rcl only, 1..8 clients sharing the little
            core, with RCL_CLIENT_WAIT=spin (waiting that ignores its core, the earlier
            behaviour) and aware (the default)
  biglittle how fast adaptive decides: the emulated big/little machine (CPU 0 little, K = 4)
            with the threads unpinned (so a lock is crowded: the server takes a CPU they use),
            pthread, rcl, rcl-adaptive at 2 and 4 threads, runs of --biglittle-seconds (1.5)
  cond      sections that wait on a condition (rcl-bench-cond): a libuv-style thread pool
            (workers wait inside their section; 1 and 8 jobs in flight, 4 workers) and a bounded
            producer/consumer queue (2 and 4 threads); pthread (the original), rcl, rcl-adaptive

Every configuration runs once per round, rounds interleave (5 by default); each figure is the
median over the rounds. Writes OUT/raw.csv, OUT/raw-cond.csv, OUT/results.csv and
OUT/report.md; prints the report. Needs 2 or more CPUs (the little one and a big one).

  bench/adaptive.py [--build DIR] [--out DIR] [--rounds N] [--seconds S] [--quick]
  bench/adaptive.py --report-only --out DIR [--seconds S]   (the report again, from DIR/raw.csv)
"""
import argparse
import csv
import io
import os
import statistics
import subprocess
import sys

# The micro's CSV columns and the per-configuration medians are the evaluation's (one reading of
# rcl-bench-micro's output for both scripts).
from evaluate import BASE_COLUMNS, KEY, median_rows  # noqa: E402  (bench/ is the script's dir)

FIELDS = ["throughput_ops_s", "p50_ns", "p99_ns"]


def sets(quick):
    threads = "1,2" if quick else "1,2,4,8"
    asym = ["--little", "0", "--clients-on", "0", "--cs-cycles", "4000", "--lines", "5",
            "--delay", "100", "--threads", threads]
    out = [("grid", {}, ["--locks", "pthread,rcl,rcl-adaptive", "--threads", threads,
                         "--lines", "5" if quick else "1,5,20",
                         "--delay", "100" if quick else "100,1000"])]
    for k in (["4"] if quick else ["1", "2", "4"]):
        out.append(("asym-k" + k, {}, ["--locks", "pthread,rcl,rcl-adaptive", "--slowdown", k]
                    + asym))
    for wait in ("spin", "aware"):
        out.append(("waiting-" + wait, {"RCL_CLIENT_WAIT": wait},
                    ["--locks", "rcl", "--slowdown", "4"] + asym))
    out.append(("biglittle", {}, ["--locks", "pthread,rcl,rcl-adaptive", "--little", "0",
                                  "--slowdown", "4", "--cs-cycles", "4000", "--lines", "5",
                                  "--delay", "100", "--threads", "2" if quick else "2,4"]))
    return out


# rcl-bench-cond's configurations: (name, arguments)
COND = [("pool-1", ["--shapes", "pool", "--inflight", "1", "--threads", "4"]),
        ("pool-8", ["--shapes", "pool", "--inflight", "8", "--threads", "4"]),
        ("pc-2", ["--shapes", "pc", "--threads", "2"]),
        ("pc-4", ["--shapes", "pc", "--threads", "4"])]
COND_COLUMNS = ["shape", "lock", "threads", "inflight", "work_cycles", "throughput_ops_s",
                "wall_s"]


def run_cond(binary, name, args, seconds):
    p = subprocess.run([binary, "--seconds", str(seconds), "--no-header", "--locks",
                        "pthread,rcl,rcl-adaptive"] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench/adaptive.py: cond %s failed: %s" % (name, p.stderr.strip()))
    return list(csv.DictReader(io.StringIO(p.stdout), fieldnames=COND_COLUMNS))


def run(micro, name, env, args, seconds):
    e = dict(os.environ, **env)
    p = subprocess.run([micro, "--seconds", str(seconds), "--no-header"] + args, env=e,
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench/adaptive.py: %s failed: %s" % (name, p.stderr.strip()))
    return list(csv.DictReader(io.StringIO(p.stdout), fieldnames=BASE_COLUMNS))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="out/adaptive")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--biglittle-seconds", type=float, default=1.5,
                    help="length of the biglittle runs (default 1.5: how fast adaptive decides)")
    ap.add_argument("--quick", action="store_true", help="one round, fewer points (a smoke)")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: write OUT/results.csv and OUT/report.md from OUT/raw.csv")
    a = ap.parse_args()
    if a.report_only:
        with open(os.path.join(a.out, "raw.csv"), newline="") as f:
            raw = list(csv.DictReader(f))
        cond_raw = []
        if os.path.exists(os.path.join(a.out, "raw-cond.csv")):
            with open(os.path.join(a.out, "raw-cond.csv"), newline="") as f:
                cond_raw = list(csv.DictReader(f))
        a.rounds = len({r["round"] for r in raw})
        report(a, raw, cond_raw)
        return
    if a.quick:
        a.rounds, a.seconds, a.biglittle_seconds = 1, 0.1, 0.2
    micro = os.path.join(a.build, "bench", "rcl-bench-micro")
    cond = os.path.join(a.build, "bench", "rcl-bench-cond")
    if len(os.sched_getaffinity(0)) < 2:
        sys.exit("bench/adaptive.py: needs 2 CPUs or more (a little one and a big one)")
    os.makedirs(a.out, exist_ok=True)
    plan = sets(a.quick)
    raw, cond_raw = [], []
    conds = COND[:1] + COND[2:3] if a.quick else COND
    for rnd in range(a.rounds):
        for i, (name, env, args) in enumerate(plan):
            print("round %d/%d: %s (%d/%d)" % (rnd + 1, a.rounds, name, i + 1, len(plan)),
                  file=sys.stderr, flush=True)
            secs = a.biglittle_seconds if name == "biglittle" else a.seconds
            for row in run(micro, name, env, args, secs):
                raw.append(dict(row, set=name, round=rnd))
        for name, args in conds:
            print("round %d/%d: cond %s" % (rnd + 1, a.rounds, name), file=sys.stderr,
                  flush=True)
            for row in run_cond(cond, name, args, a.seconds):
                cond_raw.append(dict(row, set=name, round=rnd))
    with open(os.path.join(a.out, "raw.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, ["set", "round"] + BASE_COLUMNS)
        w.writeheader()
        w.writerows(raw)
    with open(os.path.join(a.out, "raw-cond.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, ["set", "round"] + COND_COLUMNS)
        w.writeheader()
        w.writerows(cond_raw)
    report(a, raw, cond_raw)


def per_round(rows, key_of):
    """{key: {lock: {round: throughput}}} from raw rows."""
    out = {}
    for r in rows:
        out.setdefault(key_of(r), {}).setdefault(r["lock"], {})[str(r["round"])] = \
            float(r["throughput_ops_s"])
    return out


def side_by_side(locks, versus):
    """Per round, adaptive over the best of `versus` (the locks ran side by side in that
    round): the median over the rounds, the lowest and the highest."""
    ad = locks.get("rcl-adaptive", {})
    ratios = [ad[n] / max(locks[v][n] for v in versus) for n in ad
              if all(n in locks.get(v, {}) for v in versus)]
    if not ratios:
        return float("nan"), float("nan"), float("nan")
    return statistics.median(ratios), min(ratios), max(ratios)


def report(a, raw, cond_raw=()):
    results = median_rows(raw)
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, KEY + ["rounds"] + BASE_COLUMNS[4:])
        w.writeheader()
        w.writerows(results)
    med = {tuple(r[k] for k in KEY): {f: float(r[f]) for f in FIELDS} for r in results}

    def get(s, lock, t, d, l):
        return med.get((s, lock, t, d, l))

    # The same ratio within each round (the three locks ran side by side), then the median over
    # the rounds: the machine's state moves between rounds (here pthread at 4 threads runs at
    # 10 or 7.5 M CS/s), and a ratio of medians can pair one lock's good rounds with another's
    # bad ones.
    by_round = {}
    for r in raw:
        k = (r["set"], r["lock"], str(r["threads"]), str(r["delay_cycles"]), str(r["cs_lines"]))
        by_round.setdefault(k, {})[str(r["round"])] = float(r["throughput_ops_s"])

    def round_ratio(t, d, l):
        p, r, ad = (by_round.get(("grid", x, t, d, l), {}) for x in ("pthread", "rcl",
                                                                      "rcl-adaptive"))
        ratios = [ad[n] / max(p[n], r[n]) for n in ad if n in p and n in r]
        return statistics.median(ratios) if ratios else float("nan")

    rep = ["# Adaptive runtime benchmarks", "",
           "Median of %d interleaved rounds, %.2f s each (`bench/adaptive.py`)." %
           (a.rounds, a.seconds), ""]
    points = sorted({k[2:] for k in med if k[0] == "grid"}, key=lambda p: tuple(map(int, p)))
    rep += ["## Grid: adaptive / max(pthread, rcl)", "",
            "ratio: of the medians; per round: the median over the rounds of the ratio within "
            "each round (the locks ran side by side). p99 / faster's: adaptive's p99 over the "
            "p99 of the lock with the higher throughput at that point.", "",
            "| threads | delay | lines | ratio | per round | p99 adaptive / pthread / rcl (ns) | "
            "p99 / faster's |",
            "|---:|---:|---:|---:|---:|---|---:|"]
    ok = tail_ok = round_ok = 0
    for t, d, l in points:
        p, r, ad = (get("grid", x, t, d, l) for x in ("pthread", "rcl", "rcl-adaptive"))
        faster = p if p["throughput_ops_s"] >= r["throughput_ops_s"] else r
        ratio = ad["throughput_ops_s"] / faster["throughput_ops_s"]
        ok += ratio >= 0.95
        # within 10 %, or 20 ns: about two steps of the latency histogram's clock here
        tail_ok += ad["p99_ns"] <= 1.1 * faster["p99_ns"] or ad["p99_ns"] - faster["p99_ns"] <= 20
        rr = round_ratio(t, d, l)
        round_ok += rr >= 0.95
        rep.append("| %s | %s | %s | %.2f | %.2f | %.0f / %.0f / %.0f | %.2f |" % (
            t, d, l, ratio, rr, ad["p99_ns"], p["p99_ns"], r["p99_ns"],
            ad["p99_ns"] / faster["p99_ns"]))
    rep += ["", "%d of %d points at >= 0.95 (ratio of the medians), %d per round; p99 within "
            "1.1x (or 20 ns) of the faster lock's at %d." % (ok, len(points), round_ok, tail_ok),
            ""]
    rep += ["## Where delegation must win (emulated asymmetry, clients on the little CPU)", "",
            "| K | threads | pthread ops/s | rcl ops/s | rcl-adaptive ops/s | adaptive / best |",
            "|---:|---:|---:|---:|---:|---:|"]
    for s in sorted({k[0] for k in med if k[0].startswith("asym-k")}):
        for t in sorted({k[2] for k in med if k[0] == s}, key=int):
            p, r, ad = (get(s, x, t, "100", "5") for x in ("pthread", "rcl", "rcl-adaptive"))
            best = max(p["throughput_ops_s"], r["throughput_ops_s"])
            rep.append("| %s | %s | %.0f | %.0f | %.0f | %.2f |" % (
                s[6:], t, p["throughput_ops_s"], r["throughput_ops_s"], ad["throughput_ops_s"],
                ad["throughput_ops_s"] / best))
    rep += ["", "## Client waiting: clients sharing the little CPU (K = 4), rcl", "",
            "| threads | RCL_CLIENT_WAIT=spin ops/s | aware ops/s | aware / spin | p99 spin / aware (ns) |",
            "|---:|---:|---:|---:|---|"]
    for t in sorted({k[2] for k in med if k[0] == "waiting-aware"}, key=int):
        sp, aw = (get("waiting-" + w, "rcl", t, "100", "5") for w in ("spin", "aware"))
        rep.append("| %s | %.0f | %.0f | %.2f | %.0f / %.0f |" % (
            t, sp["throughput_ops_s"], aw["throughput_ops_s"],
            aw["throughput_ops_s"] / sp["throughput_ops_s"], sp["p99_ns"], aw["p99_ns"]))
    bl = per_round([r for r in raw if r["set"] == "biglittle"], lambda r: str(r["threads"]))
    if bl:
        rep += ["", "## How fast adaptive decides: emulated big/little (CPU 0 little, K = 4), "
                "threads unpinned, %.1f s runs" % a.biglittle_seconds, "",
                "The threads run on both CPUs, so delegating takes a CPU they use (the lock is "
                "crowded). Per round: adaptive over rcl (delegate) and over the better of "
                "pthread and rcl, side by side; median [lowest-highest] over the rounds.", "",
                "| threads | pthread ops/s | rcl ops/s | rcl-adaptive ops/s | adaptive / rcl | "
                "adaptive / best |",
                "|---:|---:|---:|---:|---:|---:|"]
        for t in sorted(bl, key=int):
            m = {l: statistics.median(v.values()) for l, v in bl[t].items()}
            r1, r2 = side_by_side(bl[t], ["rcl"]), side_by_side(bl[t], ["pthread", "rcl"])
            rep.append("| %s | %.0f | %.0f | %.0f | %.2f [%.2f-%.2f] | %.2f [%.2f-%.2f] |" % (
                t, m["pthread"], m["rcl"], m["rcl-adaptive"], *r1, *r2))
    cr = per_round(cond_raw, lambda r: r["set"])
    if cr:
        rep += ["", "## Sections that wait on a condition (`rcl-bench-cond`)", "",
                "pool-F: a libuv-style thread pool, 4 workers waiting inside their section, F "
                "jobs in flight (F = 1 is libuv's queue_work); pc-T: a bounded producer/consumer "
                "queue, T/2 producers and T/2 consumers whose sections wait. Jobs or items per "
                "second; per round: adaptive over the better of pthread (the original) and rcl "
                "(delegate), side by side; median [lowest-highest] over the rounds.", "",
                "| probe | pthread | rcl | rcl-adaptive | adaptive / best, per round |",
                "|---|---:|---:|---:|---:|"]
        ok = 0
        for name in [c[0] for c in COND if c[0] in cr]:
            m = {l: statistics.median(v.values()) for l, v in cr[name].items()}
            r = side_by_side(cr[name], ["pthread", "rcl"])
            ok += r[0] >= 0.95
            rep.append("| %s | %.0f | %.0f | %.0f | %.2f [%.2f-%.2f] |" % (
                name, m["pthread"], m["rcl"], m["rcl-adaptive"], *r))
        rep += ["", "%d of %d probes at >= 0.95 per round." % (ok, len(cr)), ""]
    text = "\n".join(rep) + "\n"
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
