"""rcl compare: run commands side by side, interleaved, and compare them by one measure (the
throughput of an RCL_RESULT line, the wall time, or a number taken from the output), with the
spread over runs; the results as a table, CSV, JSON and an SVG plot (throughput and p99)."""
import csv
import datetime
import io
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

from . import fmt, machine, measure
from .ui import (Failure, note, rel, resolve_program, say, temp_path_for, write_atomic,
                 write_json)

RESULT_PREFIX = "RCL_RESULT "


class Variant:
    def __init__(self, words, label):
        self.env, i = {}, 0
        while i < len(words) and "=" in words[i] and not words[i].startswith("=") and \
                words[i].split("=", 1)[0].replace("_", "a").isalnum():
            k, v = words[i].split("=", 1)
            self.env[k] = v
            i += 1
        self.argv = words[i:]
        if not self.argv:
            raise Failure("a variant has no command: %s" % " ".join(words))
        self.label = label or " ".join(
            ["%s=%s" % kv for kv in self.env.items()] + [os.path.basename(self.argv[0])])

    def command(self, threads):
        return [a.replace("{threads}", str(threads)) for a in self.argv]

    def shell(self, threads):
        return " ".join(["%s=%s" % kv for kv in self.env.items()] +
                        [shlex.quote(a) for a in self.command(threads)])


def split_variants(words):
    """`A... -- B... -- C...` into lists; `--` itself never starts a variant."""
    groups, cur = [], []
    for w in words:
        if w == "--":
            if cur:
                groups.append(cur)
            cur = []
        else:
            cur.append(w)
    if cur:
        groups.append(cur)
    return groups


def parse_result(stdout):
    """The program's last `RCL_RESULT {json}` line, or None."""
    found = None
    for line in stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            try:
                found = json.loads(line[len(RESULT_PREFIX):])
            except ValueError:
                pass
    return found if isinstance(found, dict) else None


def run_once(variant, threads, log_path, timeout, metric=None):
    env = dict(os.environ)
    env.update(variant.env)
    cmd = variant.command(threads)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    except OSError as e:
        raise Failure("cannot run %s: %s" % (cmd[0], e.strerror), 127)
    try:
        out, _ = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        timed_out = True
    wall = time.monotonic() - start
    text = out.decode(errors="replace")
    write_atomic(log_path, text)
    res = parse_result(text) or {}
    status = proc.returncode
    run = {"exit_status": status, "timed_out": timed_out, "log": log_path,
           "throughput_ops_s": res.get("throughput_ops_s"), "p99_ns": res.get("p99_ns"),
           "p50_ns": res.get("p50_ns"), "cpu_s": res.get("cpu_s"),
           "wall_s": res.get("wall_s", round(wall, 3)), "result_line": bool(res)}
    if metric is not None:
        run["metric"] = measure.metric_value(text, metric)
    check = res.get("self_check")
    run["ok"] = status == 0 and not timed_out and check in (None, "ok")
    run["self_check"] = check or ("exit 0" if status == 0 else None)
    return run


def median_of(runs, key):
    vals = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
    return statistics.median(vals) if vals else None


def children_cpu():
    ru = os.times()
    return ru.children_user + ru.children_system


MEASURES = {  # key in a run: (label in the table, unit, higher is better)
    "throughput_ops_s": ("ops/s", "ops/s", True),
    "wall_s": ("wall", "s", False),
    "metric": ("metric", "", True),
}


def choose_measure(cells, metric_regex=None, lower_is_better=False):
    """What the variants are compared by: the --metric number when asked for, else the
    throughput of the RCL_RESULT line when any run printed one, else the wall time (for
    programs that do a fixed amount of work)."""
    if metric_regex is not None:
        return {"key": "metric", "label": "metric", "regex": metric_regex,
                "higher_is_better": not lower_is_better}
    if any(r["throughput_ops_s"] is not None for cell in cells.values() for r in cell):
        return {"key": "throughput_ops_s", "label": "ops/s", "higher_is_better": True}
    return {"key": "wall_s", "label": "wall", "higher_is_better": False}


def run_compare(variants, threads_list, runs, out_dir, timeout, progress_label="compare",
                metric_regex=None, lower_is_better=False):
    """Run every (variant, threads) `runs` times, interleaved; return the results dict."""
    metric = measure.compile_metric(metric_regex) if metric_regex is not None else None
    for v in variants:
        resolve_program(v.command(threads_list[0])[0])
        if len(threads_list) > 1 and not any("{threads}" in a for a in v.argv):
            raise Failure("--threads sweeps %s, but the command of '%s' has no {threads} to "
                          "replace: %s" % (",".join(map(str, threads_list)), v.label,
                                            " ".join(v.argv)))
    log_dir = os.path.join(out_dir, "runs")
    cells = {(v.label, t): [] for v in variants for t in threads_list}
    total, n = runs * len(threads_list) * len(variants), 0
    for r in range(runs):
        for t in threads_list:
            for v in variants:
                n += 1
                sys.stderr.write("[%s %d/%d] %s, %d threads, run %d/%d... " % (
                    progress_label, n, total, v.label, t, r + 1, runs))
                sys.stderr.flush()
                safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in v.label)
                before = children_cpu()
                run = run_once(v, t, os.path.join(log_dir, "%s.t%d.r%d.txt" % (safe, t, r + 1)),
                               timeout, metric)
                if run["cpu_s"] is None:
                    run["cpu_s"] = round(children_cpu() - before, 3)
                cells[(v.label, t)].append(run)
                sys.stderr.write("%s%s%s\n" % (
                    "%s ops/s, " % fmt.rate(run["throughput_ops_s"])
                    if run["throughput_ops_s"] is not None else "",
                    "metric %s, " % ("%g" % run["metric"] if run["metric"] is not None else
                                     "not found") if metric is not None else "",
                    "ok" if run["ok"] else "FAILED (%s)" % (
                        "timed out" if run["timed_out"] else "exit status %d, see %s" % (
                            run["exit_status"], rel(run["log"])))))
    how = choose_measure(cells, metric_regex, lower_is_better)
    rows = []
    for t in threads_list:
        base = None
        for v in variants:
            cell = cells[(v.label, t)]
            thr = median_of(cell, "throughput_ops_s")
            stats = measure.spread(x.get(how["key"]) for x in cell)
            if base is None:
                base = stats["median"]
            vals = [x["throughput_ops_s"] for x in cell if x["throughput_ops_s"] is not None]
            rows.append({
                "variant": v.label, "threads": t, "command": v.shell(t), "env": v.env,
                "runs": cell, "throughput_ops_s": thr,
                "throughput_min": min(vals) if vals else None,
                "throughput_max": max(vals) if vals else None,
                "measure": stats,
                "vs_first": measure.ratio(stats["median"], base, how["higher_is_better"]),
                "p99_ns": median_of(cell, "p99_ns"), "cpu_s": median_of(cell, "cpu_s"),
                "wall_s": median_of(cell, "wall_s"),
                "ok_runs": sum(x["ok"] for x in cell), "self_check_ok": all(x["ok"] for x in cell)})
    return {"schema": "rcl-compare/1", "date": datetime.datetime.now().isoformat(
        timespec="seconds"), "machine": machine.describe(), "runs_per_point": runs,
        "threads": threads_list, "variants": [v.label for v in variants], "measure": how,
        "results": rows}


def measure_text(value, key):
    if value is None:
        return "-"
    if key == "throughput_ops_s":
        return fmt.rate(value)
    if key == "wall_s":
        return "%.3f s" % value
    return "%g" % value


def compare_table(result):
    m = result["machine"]
    how = result.get("measure", {"key": "throughput_ops_s"})
    key = how["key"]
    check = lambda r: ("ok" if r["self_check_ok"] else "FAILED") + " (%d/%d)" % (
        r["ok_runs"], len(r["runs"]))
    secs = lambda v: "%.2f s" % v if v is not None else "-"
    vs = lambda r: "%.2f x" % r["vs_first"] if r["vs_first"] is not None else "-"
    rows = []
    if key == "throughput_ops_s":
        head = ["variant", "threads", "ops/s", "vs first", "p99 latency", "cpu time", "wall",
                "self-check"]
        for r in result["results"]:
            rows.append([r["variant"], str(r["threads"]), fmt.rate(r["throughput_ops_s"]), vs(r),
                         fmt.ns(r["p99_ns"]), secs(r["cpu_s"]), secs(r["wall_s"]), check(r)])
        what = "throughput / the first variant's"
    else:
        # Programs without an RCL_RESULT throughput: the wall time of a fixed amount of work,
        # or the number --metric takes from the output, with its spread over the runs.
        p99 = any(r["p99_ns"] is not None for r in result["results"])
        label = "wall" if key == "wall_s" else "metric"
        head = ["variant", "threads", label, "spread", "vs first"] + (
            ["p99 latency"] if p99 else []) + ["cpu time"] + (
            ["wall"] if key != "wall_s" else []) + ["self-check"]
        for r in result["results"]:
            st = r["measure"]
            spread = ("+-%.1f %%" % st["rel_stdev_percent"]
                      if st["rel_stdev_percent"] is not None else "-")
            rows.append([r["variant"], str(r["threads"]), measure_text(st["median"], key), spread,
                         vs(r)] + ([fmt.ns(r["p99_ns"])] if p99 else []) + [secs(r["cpu_s"])] + (
                [secs(r["wall_s"])] if key != "wall_s" else []) + [check(r)])
        if key == "wall_s":
            what = ("the first variant's wall time / this one's (no run printed a throughput: "
                    "compared by wall time, for programs that do a fixed amount of work)")
        elif how["higher_is_better"]:
            what = "metric / the first variant's (metric: %s)" % how["regex"]
        else:
            what = "the first variant's metric / this one's (metric: %s, lower is better)" % (
                how["regex"])
    widths = [max(len(x[i]) for x in rows + [head]) for i in range(len(head))]
    lines = ["machine: " + machine.line(m),
             "median of %d run(s) per row; 'vs first' = %s at the same thread count%s; cpu time "
             "= the whole process (user + system)" % (
                 result["runs_per_point"], what, "" if key == "throughput_ops_s" else
                 " (above 1: better); spread = standard deviation over the runs, in % of their "
                 "mean")]
    for i, row in enumerate([head] + rows):
        lines.append("  ".join(c.ljust(widths[j]) if j == 0 else c.rjust(widths[j])
                               for j, c in enumerate(row)))
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def compare_csv(result):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    key = result["measure"]["key"]
    w.writerow(["variant", "threads", "runs", "throughput_ops_s", "throughput_min",
                "throughput_max", "p99_ns", "cpu_s", "wall_s", "self_check", "command",
                "measure", "measure_median", "measure_min", "measure_max", "measure_stdev",
                "vs_first"])
    for r in result["results"]:
        st = r["measure"]
        w.writerow([r["variant"], r["threads"], len(r["runs"]), r["throughput_ops_s"],
                    r["throughput_min"], r["throughput_max"], r["p99_ns"], r["cpu_s"],
                    r["wall_s"], "ok" if r["self_check_ok"] else "failed", r["command"], key,
                    st["median"], st["min"], st["max"], st["stdev"], r["vs_first"]])
    return buf.getvalue()


def plot_panel(ax, result, rows, value_of, ylabel):
    """One panel: the median per variant (per thread count when swept), bars from min to max."""
    threads = result["threads"]
    for v in result["variants"]:
        pts = [r for r in rows if r["variant"] == v]
        if not pts:
            continue
        xs = [r["threads"] for r in pts] if len(threads) > 1 else [result["variants"].index(v)]
        med, lo, hi = zip(*(value_of(r) for r in pts))
        err = [[m - a for m, a in zip(med, lo)], [b - m for m, b in zip(med, hi)]]
        if len(threads) > 1:
            ax.errorbar(xs, med, yerr=err, marker="o", capsize=3, label=v)
        else:
            ax.bar(xs, med, yerr=err, capsize=4, label=v)
    if len(threads) > 1:
        ax.set_xlabel("threads")
        ax.set_xticks(threads)
        ax.legend(fontsize=8)
    else:
        ax.set_xticks(range(len(result["variants"])))
        ax.set_xticklabels(result["variants"], fontsize=8)
        ax.set_xlabel("%d threads" % threads[0])
    ax.set_ylabel(ylabel, fontsize=9)
    ax.set_ylim(bottom=0)


def compare_plot(result, path, title):
    """The compared measure per variant (and per thread count when swept) and, where the
    programs report it, the p99 latency next to it, as SVG; None, or why there is no plot."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "no plot: python3-matplotlib is not installed (apt-get install python3-matplotlib)"
    how = result["measure"]
    key = how["key"]
    rows = [r for r in result["results"] if r["measure"]["median"] is not None]
    if not rows:
        return "no plot: no run gave a number to compare (%s)" % (
            "--metric %s matched nothing" % how["regex"] if key == "metric" else key)
    latency = [r for r in result["results"]
               if any(x.get("p99_ns") is not None for x in r["runs"])]
    fig, axes = plt.subplots(1, 2 if latency else 1, figsize=(12 if latency else 7.5, 4.2),
                             squeeze=False)
    scale, unit = {"throughput_ops_s": (1e6, "throughput (M ops/s"),
                   "wall_s": (1.0, "wall time (s"),
                   "metric": (1.0, "metric (%s" % how.get("regex"))}[key]
    better = "higher" if how["higher_is_better"] else "lower"
    plot_panel(axes[0][0], result, rows, lambda r: (
        r["measure"]["median"] / scale, r["measure"]["min"] / scale, r["measure"]["max"] / scale),
        "%s, median; bars: min-max; %s is better)" % (unit, better))
    if latency:
        def p99(r):
            vals = [x["p99_ns"] / 1e3 for x in r["runs"] if x.get("p99_ns") is not None]
            return statistics.median(vals), min(vals), max(vals)
        plot_panel(axes[0][1], result, latency, p99,
                   "p99 latency (us, median; bars: min-max; lower is better)")
    m = result["machine"]
    fig.suptitle("%s\n%s, %d CPUs, Linux %s" % (title, m["cpu_model"], m["cpus"], m["kernel"]),
                 fontsize=9)
    fig.tight_layout()
    tmp = temp_path_for(path)
    try:
        fig.savefig(tmp, format="svg", metadata={"Date": None})
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)
    return None


def write_compare_outputs(result, out_dir, title):
    """compare.json, compare.csv, compare.svg, compare.txt in out_dir; returns the paths."""
    paths = {k: os.path.join(out_dir, "compare." + k) for k in ("json", "csv", "svg", "txt")}
    why = compare_plot(result, paths["svg"], title)
    if why:
        note(why)
        paths["svg"] = None
    result["plot"] = paths["svg"]
    write_atomic(paths["csv"], compare_csv(result))
    write_atomic(paths["txt"], compare_table(result))
    write_json(paths["json"], result)
    return paths


def parse_threads(text):
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        vals = []
    if not vals or any(v < 1 or v > 4096 for v in vals):
        raise Failure("--threads %s: expected a comma-separated list of thread counts, "
                      "e.g. 1,2,4" % text)
    return vals


def cmd_compare(args, words):
    groups = split_variants(words)
    if not groups:
        raise Failure("no commands to compare: rcl compare [options] -- CMD_A... -- CMD_B...")
    labels = args.label or []
    if len(labels) > len(groups):
        raise Failure("%d --label for %d commands" % (len(labels), len(groups)))
    variants = [Variant(g, labels[i] if i < len(labels) else None) for i, g in enumerate(groups)]
    seen = {}
    for v in variants:
        seen[v.label] = seen.get(v.label, 0) + 1
        if seen[v.label] > 1:
            v.label += " #%d" % seen[v.label]
    if args.runs < 1:
        raise Failure("--runs must be at least 1")
    threads = parse_threads(args.threads) if args.threads else [1]
    if not args.threads:
        for v in variants:
            if any("{threads}" in a for a in v.argv):
                raise Failure("'%s' uses {threads}: give --threads" % v.label)
    if args.lower_is_better and args.metric is None:
        raise Failure("--lower-is-better is about --metric: add --metric REGEX")
    if args.metric is not None:
        try:
            measure.compile_metric(args.metric)
        except ValueError as e:
            raise Failure(str(e))
    result = run_compare(variants, threads, args.runs, args.output_dir, args.timeout,
                         metric_regex=args.metric, lower_is_better=args.lower_is_better)
    paths = write_compare_outputs(result, args.output_dir, args.title or "throughput per variant")
    say(compare_table(result).rstrip("\n"))
    say("results: %s, %s%s; per-run output in %s/" % (
        rel(paths["json"]), rel(paths["csv"]), ", plot " + rel(paths["svg"]) if paths["svg"]
        else "", rel(os.path.join(args.output_dir, "runs"))))
    if args.json:
        write_json(args.json, result)
    return 0 if all(r["self_check_ok"] for r in result["results"]) else 1
