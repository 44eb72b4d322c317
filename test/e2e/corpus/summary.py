#!/usr/bin/env python3
"""Results of test/e2e/corpus.sh.

    summary.py package PKG_DIR RESULT_JSON   one package's result from what corpus.sh left in
                                             PKG_DIR (facts.env, reports/, the logs); prints a
                                             line; exit 1 when the package has a fault
    summary.py summary WORK                  WORK/summary.json and WORK/summary.md from
                                             WORK/results/*.json; prints the Markdown

A package's faults: a translation unit compiled unchanged (rcl-cc's "compiled it unchanged"
warning, a report with "error"), a crash of rcl-rewrite (a stack dump, an internal error, a
signal) or of rcl-cc (a Python traceback), a converted build that fails where the original
builds, a suite run in a mode that fails a test the original passes (or fails where the
original passes, when the suite names no tests).
"""
import collections
import glob
import importlib.util
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "rcl_cc_report", os.path.join(HERE, "..", "rcl-cc-report.py"))
rcl_cc_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rcl_cc_report)
_spec = importlib.util.spec_from_file_location("acquisitions", os.path.join(HERE, "acquisitions.py"))
acquisitions = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(acquisitions)

MODES = ("delegate", "adaptive", "local")
CRASH = re.compile(r"PLEASE submit a bug report|Stack dump:|rcl-rewrite: internal error|"
                   r"Segmentation fault|Aborted|core dumped|LLVM ERROR|Assertion .* failed")


def normalize(reason):
    """A refusal reason without the names and numbers of one place, for ranking."""
    # A quote opens where no letter comes before it: "the section's lock 'm'" keeps its
    # apostrophe.
    reason = re.sub(r"(?<!\w)'[^']*'", "'_'", reason)
    reason = re.sub(r"^the result of \S+ is used", "the result of _ is used", reason)
    reason = re.sub(r" \([^() ]+:\d+\)$", "", reason)  # where a callee does it
    reason = re.sub(r"\b\d+\b", "N", reason)
    return reason


def read_facts(path):
    facts = {}
    if os.path.exists(path):
        for line in open(path, errors="replace"):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                facts.setdefault(k, v) if k != "fault" else facts.setdefault("faults", []).append(v)
    return facts


def read(path):
    try:
        return open(path, errors="replace").read()
    except OSError:
        return ""


def fallbacks_of(log):
    """rcl-cc's 'compiled it unchanged' warnings: (file, why, first line of the details)."""
    out = []
    lines = log.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"rcl-cc: warning: (.*?): (rcl-rewrite failed|the rewritten file did not "
                     r"compile); compiled it unchanged", line)
        if m:
            detail = next((l.strip() for l in lines[i + 1:i + 40]
                           if re.search(r"error|Stack dump|internal error|PLEASE", l)), "")
            out.append({"file": m.group(1), "why": m.group(2), "detail": detail[:300]})
    return out


def package(pkg_dir, out):
    f = read_facts(os.path.join(pkg_dir, "facts.env"))
    r = {"name": f.get("name", os.path.basename(pkg_dir)), "source": f.get("source"),
         "version": f.get("version"), "rcl_conf": f.get("rcl_conf"),
         "commands": {k: f.get(k) for k in ("configure", "build_cmd", "test_cmd")},
         "faults": list(f.get("faults", []))}
    for tree in ("orig", "rcl"):
        if tree + "_status" in f:
            r[tree] = {"status": int(f[tree + "_status"]),
                       "configure_s": float(f[tree + "_configure_s"]),
                       "build_s": float(f[tree + "_build_s"])}
            if tree + "_build_cpu_s" in f:
                r[tree]["build_cpu_s"] = float(f[tree + "_build_cpu_s"])
    status, tus = rcl_cc_report.collect(os.path.join(pkg_dir, "reports"))
    # Built with `rcl build`: a unit compiled again in its second pass has two reports; the
    # first pass compiled each unit once.
    build = {}
    try:
        build = json.load(open(os.path.join(pkg_dir, "rcl-build.json")))
        tus = build["passes"][0]["units"]
    except (OSError, ValueError, KeyError, IndexError):
        pass
    counts = collections.Counter(st for st, _ in status.values())
    reasons = collections.Counter(normalize(rs) for st, rs in status.values() if st == "refused")
    errors, skipped, sources, others = [], set(), set(), {}
    for path in sorted(glob.glob(os.path.join(pkg_dir, "reports", "*.json"))):
        try:
            rep = json.load(open(path))
        except ValueError:
            continue
        if rep.get("error"):
            errors.append({"report": os.path.basename(path), "error": rep["error"]})
        # Files (a file compiled twice, PIC and not, or again in rcl build's second pass, once).
        sources.add(rep.get("source", path))
        if rep.get("skipped"):
            skipped.add(rep.get("source", path))
        # Per source file: a file compiled twice (PIC and not) is one set of call sites.
        others[rep.get("source", path)] = rep.get("other_locks", {})
    log = read(os.path.join(pkg_dir, "rcl-build.log"))
    fb = fallbacks_of(log)
    crashes = [x for x in fb if CRASH.search(x["detail"])]
    crash_lines = sorted(set(l.strip() for l in log.splitlines() if CRASH.search(l)))
    tracebacks = log.count("Traceback (most recent call last)")
    r.update({"translation_units": tus, "files": len(sources), "not_parsed": len(skipped),
              "spinlock_sites": sum(o.get("spinlock", 0) for o in others.values()),
              "rwlock_sites": sum(o.get("rwlock", 0) for o in others.values()),
              "facts_scanned": build.get("facts_scanned", 0),
              "second_pass_units": (build.get("passes", [{}, {}]) + [{}])[1].get("units", 0),
              "sections": len(status), "converted": counts["converted"],
              "as_caller": sum(1 for st, rs in status.values() if st == "converted" and rs),
              "refused": counts["refused"], "not_compiled": counts["not-compiled"],
              "refusals": dict(reasons.most_common()),
              "fallbacks": fb, "fallback_reports": errors,
              "rewriter_crashes": len(crashes) or (1 if crash_lines and fb else 0),
              "crash_lines": crash_lines[:20], "rcl_cc_crashes": tracebacks})
    if "orig" in r and "rcl" in r and r["orig"]["build_s"] > 0:
        r["build_ratio"] = round(r["rcl"]["build_s"] / r["orig"]["build_s"], 2)
    if r.get("orig", {}).get("build_cpu_s") and "build_cpu_s" in r.get("rcl", {}):
        r["build_cpu_ratio"] = round(r["rcl"]["build_cpu_s"] / r["orig"]["build_cpu_s"], 2)
    if fb or errors:
        r["faults"].append("%d file(s) compiled unchanged" % max(len(fb), len(errors)))
    if r["rewriter_crashes"]:
        r["faults"].append("%d rcl-rewrite crash(es)" % r["rewriter_crashes"])
    if tracebacks:
        r["faults"].append("%d rcl-cc traceback(s)" % tracebacks)
    if r.get("orig", {}).get("status") == 0 and r.get("rcl", {}).get("status", 0) != 0:
        r["faults"].append("the converted build failed (the original builds)")
    if r.get("rcl", {}).get("status") == 0 and tus == 0:
        r["faults"].append("no translation unit went through rcl-cc (the build ignored CC; "
                           "not rcl's fault: fix the package's commands)")
    if r.get("orig", {}).get("status", 0) != 0:
        r["faults"].append("the original did not build (not rcl's fault; no comparison)")
    # Suites.
    if "test_orig_status" in f:
        def failed(run):
            p = os.path.join(pkg_dir, "test-%s.failed" % run)
            return sorted(set(read(p).split()))
        base = failed("orig")
        r["suite"] = {"orig": {"status": int(f["test_orig_status"]), "failed": base,
                               "seconds": float(f["test_orig_s"])}}
        for m in MODES:
            if "test_%s_status" % m not in f:
                continue
            st, names = int(f["test_%s_status" % m]), failed(m)
            new = [t for t in names if t not in base]
            differs = bool(new) or (st != 0 and r["suite"]["orig"]["status"] == 0)
            r["suite"][m] = {"status": st, "failed": names, "new_failures": new,
                             "same_as_original": not differs, "seconds": float(f["test_%s_s" % m])}
            if differs:
                r["faults"].append("suite in RCL_MODE=%s: %s" % (
                    m, ("new failures: " + " ".join(new[:10])) if new else
                    "exit status %d, original 0%s" % (st, " (timeout)" if st in (124, 137) else "")))
        # Weighted coverage: the delegate-mode suite once more under rcl-prof (corpus.sh).
        if "test_prof_status" in f and os.path.isdir(os.path.join(pkg_dir, "prof")):
            r["acquisitions"] = acquisitions.share(os.path.join(pkg_dir, "prof"),
                                                   os.path.join(pkg_dir, "rcl"))
            r["acquisitions"]["suite_status"] = int(f["test_prof_status"])
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as fo:
        json.dump(r, fo, indent=2)
        fo.write("\n")
    real = [x for x in r["faults"] if "not rcl's fault" not in x]
    print("%d TUs, %d sections: %d converted%s, %d refused, %d not compiled%s; build %s s -> %s s%s%s; %s" % (
        tus, len(status), counts["converted"],
        " (%d as their callers)" % r["as_caller"] if r["as_caller"] else "",
        counts["refused"], counts["not-compiled"],
        "; acquisitions delegated in the suite: " + acq_text(r) if "acquisitions" in r else "",
        r.get("orig", {}).get("build_s", "-"), r.get("rcl", {}).get("build_s", "-"),
        (" (%.2fx)" % r["build_ratio"] if "build_ratio" in r else "") +
        (", CPU %.2fx" % r["build_cpu_ratio"] if "build_cpu_ratio" in r else ""),
        "; suite: " + suite_text(r) if "suite" in r else "",
        "faults: " + "; ".join(r["faults"]) if r["faults"] else "no fault"))
    return 1 if real else 0


def acq_text(r):
    """'83.1 % of 120,400' (delegated acquisitions in the suite's delegate-mode run), or '-'."""
    a = r.get("acquisitions")
    if not a or not a["acquisitions"]:
        return "-"
    return "%.1f %% of %s" % (100.0 * a["delegated"] / a["acquisitions"],
                              format(a["acquisitions"], ","))


def suite_text(r):
    s = r.get("suite")
    if not s:
        return "-"
    o = s["orig"]
    parts = ["orig %s%s" % ("pass" if o["status"] == 0 else "exit %d" % o["status"],
                            " (%d failed)" % len(o["failed"]) if o["failed"] else "")]
    for m in MODES:
        if m in s:
            parts.append("%s %s" % (m, "same" if s[m]["same_as_original"] else "DIFFERS"))
    return ", ".join(parts)


def summary(work):
    results = []
    for path in sorted(glob.glob(os.path.join(work, "results", "*.json"))):
        results.append(json.load(open(path)))
    order = []
    listing = os.path.join(HERE, "packages.txt")
    for line in open(listing):
        line = line.split("#")[0].split()
        if line:
            order.append(line[0])
    results.sort(key=lambda r: order.index(r["name"]) if r["name"] in order else 999)
    built = [r for r in results if r.get("orig", {}).get("status") == 0 and "rcl" in r]
    tot = collections.Counter()
    reasons = collections.Counter()
    reason_pkgs = collections.defaultdict(set)
    for r in results:
        for k in ("translation_units", "files", "not_parsed", "facts_scanned", "second_pass_units",
                  "spinlock_sites", "rwlock_sites",
                  "sections", "converted", "refused", "not_compiled", "rewriter_crashes",
                  "rcl_cc_crashes"):
            tot[k] += r.get(k, 0)
        tot["fallbacks"] += max(len(r.get("fallbacks", [])), len(r.get("fallback_reports", [])))
        for reason, n in r.get("refusals", {}).items():
            reasons[reason] += n
            reason_pkgs[reason].add(r["name"])
    orig_s = sum(r["orig"]["build_s"] for r in built if r["rcl"]["status"] == 0)
    rcl_s = sum(r["rcl"]["build_s"] for r in built if r["rcl"]["status"] == 0)
    timed = [r for r in built if r["rcl"]["status"] == 0 and "build_cpu_ratio" in r]
    orig_cpu = sum(r["orig"]["build_cpu_s"] for r in timed)
    rcl_cpu = sum(r["rcl"]["build_cpu_s"] for r in timed)
    suites = [r for r in results if "suite" in r]
    weighed = [r for r in results if r.get("acquisitions", {}).get("acquisitions")]
    acq_all = sum(r["acquisitions"]["acquisitions"] for r in weighed)
    acq_deleg = sum(r["acquisitions"]["delegated"] for r in weighed)
    doc = {"packages": len(results), "built": len(built), "totals": dict(tot),
           "build_seconds": {"original": round(orig_s, 1), "rcl_cc": round(rcl_s, 1),
                             "ratio": round(rcl_s / orig_s, 2) if orig_s else None},
           "build_cpu_seconds": {"packages": len(timed), "original": round(orig_cpu, 1),
                                 "rcl_cc": round(rcl_cpu, 1),
                                 "ratio": round(rcl_cpu / orig_cpu, 2) if orig_cpu else None},
           "suites_run": len(suites),
           "acquisitions": {"packages": len(weighed), "acquisitions": acq_all,
                            "delegated": acq_deleg,
                            "share": round(acq_deleg / acq_all, 4) if acq_all else None,
                            "mean_of_packages": round(sum(
                                r["acquisitions"]["delegated"] / r["acquisitions"]["acquisitions"]
                                for r in weighed) / len(weighed), 4) if weighed else None},
           "suites_same_in_every_mode": sum(all(v.get("same_as_original", True)
                                                for v in r["suite"].values()) for r in suites),
           "refusal_reasons": [{"reason": k, "sections": n, "packages": sorted(reason_pkgs[k])}
                               for k, n in reasons.most_common()],
           "faults": {r["name"]: r["faults"] for r in results if r["faults"]},
           "results": results}
    with open(os.path.join(work, "summary.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    md = ["| package | version | TUs | files not parsed (facts read) / files | pass 2 | sections | converted | acquisitions delegated (suite) | refused | fallen back | crashes "
          "| build s (clang-19) | build s (rcl-cc) | ratio | CPU s (clang-19) | CPU s (rcl-cc) | CPU ratio | suite (orig; delegate, adaptive, local) |",
          "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    for r in results:
        fbn = max(len(r.get("fallbacks", [])), len(r.get("fallback_reports", [])))
        md.append("| %s | %s | %d | %d (%d) / %d | %d | %d | %d | %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], r.get("version") or "-", r.get("translation_units", 0),
            r.get("not_parsed", 0), r.get("facts_scanned", 0), r.get("files", 0),
            r.get("second_pass_units", 0),
            r.get("sections", 0), r.get("converted", 0), acq_text(r), r.get("refused", 0), fbn,
            r.get("rewriter_crashes", 0) + r.get("rcl_cc_crashes", 0),
            fmt_s(r, "orig"), fmt_s(r, "rcl"),
            "%.2fx" % r["build_ratio"] if "build_ratio" in r else "-",
            fmt_s(r, "orig", "build_cpu_s"), fmt_s(r, "rcl", "build_cpu_s"),
            "%.2fx" % r["build_cpu_ratio"] if "build_cpu_ratio" in r else "-", suite_text(r)))
    md.append("| **total** (%d packages) | | %d | %d (%d) / %d | %d | %d | %d | %s | %d | %d | %d | %.0f | %.0f | %s | %.0f | %.0f | %s | %d run, %d same in every mode |" % (
        len(results), tot["translation_units"], tot["not_parsed"], tot["facts_scanned"],
        tot["files"],
        tot["second_pass_units"], tot["sections"], tot["converted"],
        "%.1f %% of %s" % (100.0 * acq_deleg / acq_all, format(acq_all, ",")) if acq_all else "-",
        tot["refused"],
        tot["fallbacks"], tot["rewriter_crashes"] + tot["rcl_cc_crashes"], orig_s, rcl_s,
        "%.2fx" % (rcl_s / orig_s) if orig_s else "-", orig_cpu, rcl_cpu,
        "%.2fx" % (rcl_cpu / orig_cpu) if orig_cpu else "-", len(suites),
        doc["suites_same_in_every_mode"]))
    md += ["", "Acquisitions delegated during the suites (RCL_MODE=delegate, counted by rcl-prof; "
           "the share, not the section count, says whether RCL can pay): %s" % (
               "%.1f %% of %s over %d package(s); the packages' mean %.1f %%" % (
                   100.0 * acq_deleg / acq_all, format(acq_all, ","), len(weighed),
                   100.0 * doc["acquisitions"]["mean_of_packages"]) if acq_all else "none counted")]
    md += ["", "Locks left alone (rcl converts pthread mutex sections only; acquisitions written "
           "in the files, each file once): %d spinlock, %d rwlock." % (
               tot["spinlock_sites"], tot["rwlock_sites"])]
    md += ["", "Refusal reasons over the corpus (names replaced by `_`), most frequent first:", "",
           "| sections | packages | reason |", "|--:|--:|---|"]
    for e in doc["refusal_reasons"]:
        md.append("| %d | %d | %s |" % (e["sections"], len(e["packages"]),
                                        e["reason"].replace("|", "\\|")))
    if doc["faults"]:
        md += ["", "Faults:", ""]
        for name, faults in doc["faults"].items():
            md.append("- %s: %s" % (name, "; ".join(faults)))
    text = "\n".join(md) + "\n"
    with open(os.path.join(work, "summary.md"), "w") as f:
        f.write(text)
    print(text, end="")
    return 0


def fmt_s(r, tree, key="build_s"):
    t = r.get(tree)
    if not t or key not in t:
        return "-"
    return "%.0f" % t[key] if t["status"] == 0 else "%.0f (failed)" % t[key]


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "package":
        sys.exit(package(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] == "summary":
        sys.exit(summary(sys.argv[2]))
    sys.exit(__doc__)
