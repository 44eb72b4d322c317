#!/usr/bin/python3
"""overhead.py - what rcl-prof costs a lock-heavy program: each shape run alone and under
`rcl-prof`, interleaved, RUNS rounds, medians and ratios (docs/profiler.md, "Overhead").

    profiler/bench/overhead.py [--runs N] [--json FILE] [--plot FILE] [--compare-lib SO]
                               [--count-every N ...] BUILD_DIR [SHAPE ...]

SHAPE is BENCH:THREADS:ITERS:LOCAL_LOOPS, BENCH one of the programs built beside librcl-prof.so
(short_section: one mutex around one increment; lock_heavy: 4 mutexes around 2 cache lines),
LOCAL_LOOPS the loop turns of work outside the section. Default: short_section with the
number of CPUs and twice as many threads, without and with 200 turns of outside work, with
50 turns at the number of CPUs, and lock_heavy's default shape; each runs about 0.5 s alone on
the 2-CPU reference machine.

Every round runs, for each shape, the program alone ("base"), under `rcl-prof --no-counters
-o /dev/null --` ("prof"), under the floor ("floor": LD_PRELOAD of libinterpose-floor.so,
bench/interpose_floor.c, which forwards the lock calls to libc and does nothing else, the
least any preloaded profiler costs), with each --count-every N under `rcl-prof --count-every N`
("every-N": sampled counts), and with --compare-lib, under rcl-prof with that librcl-prof.so
instead ("other", e.g. the preload before a change), in an order that alternates from round to
round so that neither side always runs first. Three times per run: the program's own loop
time and the CPU time its threads spent in the loop (it prints both, bench_clock.h: start-up,
the dump and the report are not in them), which is what the preload's cost per acquisition
changes; and the wall time of the whole command (rcl-prof's launcher, the dump and the report
included). Each ratio is median(variant) / median(base); the spread is the smallest and
largest loop-time ratio of one round's runs. Hardware counters are off: most VMs
have none, and where they exist they cost two read(2) calls per timed critical section.

Prints a table; --json writes every run's numbers, the medians and ratios, the machine and
its load average; --plot draws the loop CPU-time ratios with the quartiles of the per-round
ratios (needs matplotlib).
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "../../python"))
from rcltools import machine  # noqa: E402
from rcltools.measure import spread  # noqa: E402


def default_shapes():
    n = os.cpu_count() or 1
    return ["short_section:%d:%d:0" % (n, 40000000 // n),
            "short_section:%d:%d:0" % (2 * n, 20000000 // n),
            "short_section:%d:%d:50" % (n, 8000000 // n),
            "short_section:%d:%d:200" % (n, 2000000 // n),
            "short_section:%d:%d:200" % (2 * n, 1000000 // n), "lock_heavy:2:3000000:50"]


def parse_shape(text):
    parts = text.split(":")
    if len(parts) != 4 or not all(p.isdigit() for p in parts[1:]):
        raise argparse.ArgumentTypeError("%s: expected BENCH:THREADS:ITERS:LOCAL_LOOPS" % text)
    return {"bench": parts[0], "threads": int(parts[1]), "iters": int(parts[2]),
            "local_loops": int(parts[3])}


def run_once(argv, env):
    """(loop ns, loop CPU ns the program printed, wall ns of the command)."""
    t0 = time.monotonic_ns()
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, check=False)
    wall = time.monotonic_ns() - t0
    last = p.stdout.splitlines()[-1].split() if p.stdout.strip() else []
    if p.returncode != 0 or len(last) != 2 or not all(x.isdigit() for x in last):
        sys.exit("overhead.py: %s failed (status %d)" % (" ".join(argv), p.returncode))
    return int(last[0]), int(last[1]), wall


def quartiles(xs):
    """The first and third quartiles of xs (statistics' default, exclusive method; both the
    one value for a single round)."""
    if len(xs) < 2:
        return xs[0], xs[0]
    import statistics
    q = statistics.quantiles(xs, n=4)
    return q[0], q[2]


def summarise(shape, samples):
    base = {k: spread(v)["median"] for k, v in samples["base"].items()}
    out = dict(shape)
    out["runs"] = samples
    out["results"] = {}
    for variant, s in samples.items():
        loop, cpu, wall = spread(s["loop_ns"]), spread(s["cpu_ns"]), spread(s["wall_ns"])
        paired = [p / b for p, b in zip(s["loop_ns"], samples["base"]["loop_ns"])]
        paired_cpu = [p / b for p, b in zip(s["cpu_ns"], samples["base"]["cpu_ns"])]
        q1, q3 = quartiles(paired_cpu)
        out["results"][variant] = {
            "loop_ns_median": loop["median"], "cpu_ns_median": cpu["median"],
            "wall_ns_median": wall["median"], "loop_ratio": loop["median"] / base["loop_ns"],
            "cpu_ratio": cpu["median"] / base["cpu_ns"],
            "wall_ratio": wall["median"] / base["wall_ns"],
            "loop_ratio_min": min(paired), "loop_ratio_max": max(paired),
            "cpu_ratio_min": min(paired_cpu), "cpu_ratio_max": max(paired_cpu),
            "cpu_ratio_q1": q1, "cpu_ratio_q3": q3,
            "ns_per_acquisition": loop["median"] / (shape["iters"] * shape["threads"]),
        }
    return out


def print_table(results):
    print("%-31s %-10s %10s %7s %14s %10s %7s %9s %7s" % (
        "bench:threads:iters:local", "run", "loop", "ratio", "round ratios", "loop CPU",
        "ratio", "command", "ratio"))
    for r in results:
        name = "%s:%d:%d:%d" % (r["bench"], r["threads"], r["iters"], r["local_loops"])
        for variant, v in r["results"].items():
            print("%-31s %-10s %7.1f ms %6.3fx %6.3f..%-6.3f %7.1f ms %6.3fx %6.0f ms %6.3fx" % (
                name, variant, v["loop_ns_median"] / 1e6, v["loop_ratio"], v["loop_ratio_min"],
                v["loop_ratio_max"], v["cpu_ns_median"] / 1e6, v["cpu_ratio"],
                v["wall_ns_median"] / 1e6, v["wall_ratio"]))
            name = ""


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    variants = [v for v in results[0]["results"] if v != "base"]
    labels = ["%s\n%d thr, %d loc" % (r["bench"], r["threads"], r["local_loops"])
              for r in results]
    fig, ax = plt.subplots(figsize=(1.6 * len(results) + 2, 3.2))
    width = 0.8 / len(variants)
    for i, variant in enumerate(variants):
        xs = [k + (i - (len(variants) - 1) / 2) * width for k in range(len(results))]
        med = [r["results"][variant]["cpu_ratio"] for r in results]
        lo = [max(0, m - r["results"][variant]["cpu_ratio_q1"]) for m, r in zip(med, results)]
        hi = [max(0, r["results"][variant]["cpu_ratio_q3"] - m) for m, r in zip(med, results)]
        ax.bar(xs, med, width, yerr=[lo, hi], capsize=3, label=variant)
    ax.axhline(1.05, color="grey", linestyle="--", linewidth=1, label="1.05x")
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("loop CPU time / base\n(median, quartiles of the rounds)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("build", metavar="BUILD_DIR")
    p.add_argument("shapes", metavar="SHAPE", nargs="*", type=parse_shape,
                   help="BENCH:THREADS:ITERS:LOCAL_LOOPS (default: %s)" % " ".join(
                       default_shapes()))
    p.add_argument("--runs", type=int, default=7, help="rounds (default 7)")
    p.add_argument("--json", metavar="FILE", help="write every run and the summary as JSON")
    p.add_argument("--plot", metavar="FILE", help="draw the loop CPU-time ratios (matplotlib)")
    p.add_argument("--count-every", type=int, action="append", default=[], metavar="N",
                   help="also run under rcl-prof --count-every N (repeatable)")
    p.add_argument("--compare-lib", metavar="SO",
                   help="also run under rcl-prof with this librcl-prof.so (RCL_PROF_LIB)")
    # intermixed: `overhead.py BUILD --runs 11 SHAPE...`, as docs/profiler.md writes it
    args = p.parse_intermixed_args(argv)
    shapes = args.shapes or [parse_shape(s) for s in default_shapes()]
    build = os.path.abspath(args.build)
    rcl_prof = os.path.join(build, "profiler", "rcl-prof")
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    floor = os.path.join(build, "profiler", "libinterpose-floor.so")
    variants = [("base", None, env), ("floor", None, dict(env, LD_PRELOAD=floor)),
                ("prof", rcl_prof, env)]
    for n in args.count_every:
        variants.append(("every-%d" % n, rcl_prof, dict(env, RCL_PROF_COUNT_EVERY=str(n))))
    if args.compare_lib:
        variants.append(("other", rcl_prof, dict(env, RCL_PROF_LIB=os.path.abspath(
            args.compare_lib))))
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            sys.exit("overhead.py: --plot needs matplotlib (Debian: python3-matplotlib)")
    samples = [{name: {"loop_ns": [], "cpu_ns": [], "wall_ns": []} for name, _, _ in variants}
               for _ in shapes]
    load_before = os.getloadavg()
    for rnd in range(args.runs):
        order = variants if rnd % 2 == 0 else variants[::-1]
        for shape, s in zip(shapes, samples):
            prog = [os.path.join(build, "profiler", shape["bench"]), str(shape["threads"]),
                    str(shape["iters"]), str(shape["local_loops"])]
            for name, launcher, venv in order:
                argv = prog if launcher is None else [
                    launcher, "--no-counters", "-o", os.devnull, "--"] + prog
                loop, cpu, wall = run_once(argv, venv)
                s[name]["loop_ns"].append(loop)
                s[name]["cpu_ns"].append(cpu)
                s[name]["wall_ns"].append(wall)
    results = [summarise(shape, s) for shape, s in zip(shapes, samples)]
    print_table(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine.describe(), "load_average_before": load_before,
                       "load_average_after": os.getloadavg(), "runs": args.runs,
                       "compare_lib": args.compare_lib, "shapes": results}, f, indent=1)
            f.write("\n")
    if args.plot:
        plot(results, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
