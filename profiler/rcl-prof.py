#!/usr/bin/env python3
"""rcl-prof: find the locks worth delegating to an RCL server, and hand them to the rewriter.

Runs a program with librcl-prof.so preloaded (no recompilation), then turns the raw dump the
preload wrote into a readable report and, with --json, profile.json (docs/profile-json.md).
Design, definitions and limits: docs/profiler.md.
"""

import argparse
import bisect
import errno
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

SCHEMA = "rcl-profile/1"
DEFAULT_THRESHOLDS = {"convert_cs_percent": 15.0, "borderline_cs_percent": 5.0,
                      "min_acquisitions": 100, "source": "default"}
EXIT_TOOL_ERROR = 125  # like env(1)/timeout(1): rcl-prof itself failed
SITE_KINDS = ("lock", "trylock", "timedlock", "delegate")
IDENT_INIT, IDENT_FIRST_LOCK, IDENT_OVERFLOW = 0, 1, 2
DUMP_REASONS = ("exit", "library destructor", "fatal signal", "_exit")

DEFINITIONS = """\
definitions (docs/profiler.md has the details):
  thread time   the summed lifetime of the program's threads while profiled: the main
                thread from start-up to the end, plus every thread created with
                pthread_create from its start to its exit (librcl's servers excluded).
  hold time     from the return of the lock call to the unlock call. A pthread_cond_wait
                inside the critical section is not hold time (the hold stops at the wait
                and restarts when it returns). Locks whose critical sections are short
                (< ~1 us) are timed on a random sample of ~1 in 16 after their first 64
                and the total is extrapolated; counts are always exact. A delegated
                critical section (rcl_delegate) holds for the time the server ran it.
  % time in CS  hold time of the lock / thread time x 100. Waiting for the lock is not in
                it; it is reported apart (wait avg/max; wait_percent in the JSON).
  contended     an acquisition that found the lock taken by another thread (its lock word,
                read just before locking); only those wait, and only their wait is timed.
                wait avg = total wait / all acquisitions.
  misses/CS     hardware cache misses (PERF_COUNT_HW_CACHE_MISSES, user space) of the
                acquiring thread between acquire and release, per timed critical section;
                n/a (never 0) when the machine has no hardware counters.
  advice        convert when % time in CS >= the convert threshold, borderline when >= the
                borderline threshold, dont otherwise, and dont for locks acquired fewer
                than min_acquisitions (100) times. Defaults: Lozi et al., ATC'12 (RCL beat
                POSIX locks above ~15 %); `rcl-prof calibrate` measures this machine's.
"""

# ---- the raw dump (profiler/src/prof.h) ----

HEADER = struct.Struct("<8s4I2i9Q8iQ64s")
RAW_VERSION = 4
SITES = 6
# struct lock_record, field by field (the padding to 64-byte alignment at the end)
RECORD_FIELDS = (
    ("acquisitions", "Q"), ("contended", "Q"), ("holds", "Q"), ("holds_timed", "Q"),
    ("hold_ticks", "Q"), ("hold_max_ticks", "Q"), ("wait_ticks", "Q"), ("pad0", "I"),
    ("has_delegated", "I")) + tuple(
    (name % i, f) for i in range(SITES) for name, f in (
        ("site%d_pc", "Q"), ("site%d_count", "Q"), ("site%d_kind", "I"), ("site%d_pad", "I"))) + (
    ("other_sites", "Q"), ("wait_max_ticks", "Q"), ("trylock_failures", "Q"), ("timeouts", "Q"),
    ("misses", "Q"), ("misses_cs", "Q"), ("kind0", "Q"), ("kind1", "Q"), ("kind2", "Q"),
    ("kind3", "Q"), ("delegated", "Q"), ("deleg_hold_ns", "Q"), ("deleg_hold_max_ns", "Q"),
    ("deleg_wait_ns", "Q"), ("deleg_wait_max_ns", "Q"), ("address", "Q"), ("init_pc", "Q"),
    ("identity_source", "I"), ("generation", "I"))
_fmt = "<" + "".join(f for _, f in RECORD_FIELDS)
RECORD = struct.Struct(_fmt + "%dx" % (-struct.calcsize(_fmt) % 64))
FIELD = {name: i for i, (name, _) in enumerate(RECORD_FIELDS)}


class RawError(Exception):
    pass


def record_dict(v):
    rec = {name: v[i] for i, (name, _) in enumerate(RECORD_FIELDS) if not name.startswith("site")}
    rec["hold_ticks_by_kind"] = [rec.pop("kind%d" % k) for k in range(4)]
    base = FIELD["site0_pc"]
    rec["sites"] = [{"pc": v[i], "count": v[i + 1], "kind": v[i + 2]}
                    for i in range(base, base + 4 * SITES, 4) if v[i] and v[i + 1]]
    return rec


def parse_raw(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HEADER.size or data[:8] != b"RCLPROF\0":
        raise RawError("%s is not an rcl-prof raw file" % path)
    h = HEADER.unpack_from(data, 0)
    (_, version, header_size, record_size, nsites, pid, ppid, start_ticks, end_ticks, start_ns,
     end_ns, thread_ticks, threads_started, nrecords, locks_untracked, holds_untracked,
     hw_counters, hw_errno, nkinds, dump_reason, sig, exe_len, counter_event, _, maps_len,
     kind_names) = h
    if version != RAW_VERSION or header_size != HEADER.size or \
            record_size != RECORD.size or nsites != SITES:
        raise RawError("%s: raw format version %d does not match this rcl-prof" % (path, version))
    off = header_size
    exe = data[off:off + exe_len].decode("utf-8", "replace")
    off += exe_len
    maps = data[off:off + maps_len].decode("utf-8", "replace")
    off += maps_len
    end = min(off + nrecords * record_size, off + (len(data) - off) // record_size * record_size)
    records = list(RECORD.iter_unpack(data[off:end]))  # tuples; record_dict() for those shown
    names = [kind_names[i * 16:(i + 1) * 16].split(b"\0")[0].decode() for i in range(4)]
    ticks = end_ticks - start_ticks
    return {
        "pid": pid, "ppid": ppid, "exe": exe, "maps": maps, "records": records,
        "ns_per_tick": (end_ns - start_ns) / ticks if ticks > 0 else 1.0,
        "duration_ns": end_ns - start_ns, "thread_ticks": thread_ticks,
        "threads_started": threads_started, "locks_untracked": locks_untracked,
        "holds_untracked": holds_untracked, "hw_counters": bool(hw_counters),
        "hw_errno": hw_errno, "kind_names": names[:max(nkinds, 1)],
        "dump_reason": dump_reason, "signal": sig, "counter_event": counter_event,
    }


# ---- addresses -> modules -> symbols ----

def elf_program_headers(path):
    """(phentsize, phnum, raw program headers) of an ELF64 file; None if it is not one."""
    try:
        with open(path, "rb") as f:
            ident = f.read(64)
            if len(ident) < 64 or ident[:4] != b"\x7fELF" or ident[4] != 2:
                return None
            phoff, = struct.unpack_from("<Q", ident, 32)
            phentsize, phnum = struct.unpack_from("<HH", ident, 54)
            f.seek(phoff)
            return phentsize, phnum, f.read(phentsize * phnum)
    except OSError:
        return None


def elf_loads(path):
    """PT_LOAD segments (vaddr, offset, memsz) of an ELF64 file, or None."""
    headers = elf_program_headers(path)
    if headers is None:
        return None
    phentsize, phnum, ph = headers
    loads = []
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, _, p_memsz, _ = struct.unpack_from(
            "<IIQQQQQQ", ph, i * phentsize)
        if p_type == 1:
            loads.append((p_vaddr, p_offset, p_memsz))
    return loads


def elf_has_interp(path):
    headers = elf_program_headers(path)
    if headers is None:
        return True  # a script or something we cannot judge
    phentsize, phnum, ph = headers
    return any(struct.unpack_from("<I", ph, i * phentsize)[0] == 3 for i in range(phnum))


class Modules:
    """The process's mapped ELF files, with their load bias, from /proc/<pid>/maps text."""

    def __init__(self, maps_text):
        first = {}
        for line in maps_text.splitlines():
            parts = line.split(None, 5)
            if len(parts) < 6 or not parts[5].startswith("/"):
                continue
            start, _ = (int(x, 16) for x in parts[0].split("-"))
            offset = int(parts[2], 16)
            path = parts[5].strip()
            if path.endswith(" (deleted)"):
                continue
            if path not in first or offset < first[path][1]:
                first[path] = (start, offset)
        self.mods = []
        for path, (start, offset) in first.items():
            loads = elf_loads(path)
            if not loads:
                continue
            seg = next((l for l in loads if l[1] <= offset < l[1] + max(l[2], 1)), loads[0])
            bias = start - offset - (seg[0] - seg[1])
            lo = min(l[0] for l in loads) + bias
            hi = max(l[0] + l[2] for l in loads) + bias
            self.mods.append((lo, hi, bias, path))

        self.mods.sort()
        self.starts = [m[0] for m in self.mods]

    def find(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        if i >= 0:
            lo, hi, bias, path = self.mods[i]
            if addr < hi:
                return path, addr - bias
        return None, None


def find_symbolizer(explicit):
    if explicit:
        return explicit
    env = os.environ.get("RCL_PROF_SYMBOLIZER")
    if env:
        return env
    for cand in ("llvm-symbolizer-19", "/usr/lib/llvm-19/bin/llvm-symbolizer", "llvm-symbolizer"):
        p = shutil.which(cand)
        if p:
            return p
    return shutil.which("addr2line")


def symbolize(queries, tool):
    """queries: list of (kind 'CODE'|'DATA', path, offset). Returns a list of results:
    CODE -> dict(file, line, column, function) ; DATA -> dict(name, start, size); None if
    unknown."""
    results = [None] * len(queries)
    if not queries or not tool:
        return results
    if os.path.basename(tool).startswith("addr2line"):
        return symbolize_addr2line(queries, tool)
    text = "".join('%s "%s" 0x%x\n' % q for q in queries)
    try:
        out = subprocess.run([tool, "--output-style=JSON", "--inlines", "--demangle"],
                             input=text, capture_output=True,
                             text=True, check=False).stdout
    except OSError:
        return results
    for i, line in enumerate(out.splitlines()[:len(queries)]):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if queries[i][0] == "DATA":
            d = r.get("Data") or {}
            if d.get("Name"):
                results[i] = {"name": d["Name"], "start": int(d.get("Start", "0"), 16),
                              "size": int(d.get("Size", "0"), 16)}
        else:
            frames = r.get("Symbol") or []
            if frames:
                f = frames[0]  # innermost inlined frame: where the call is written
                fn = f.get("FunctionName") or ""
                results[i] = {"file": f.get("FileName") if f.get("Line") else None,
                              "line": f.get("Line") or 0, "column": f.get("Column") or 0,
                              "function": None if fn in ("", "??") else fn}
    return results


def symbolize_addr2line(queries, tool):
    results = [None] * len(queries)
    by_path = {}
    for i, (kind, path, off) in enumerate(queries):
        if kind == "CODE":
            by_path.setdefault(path, []).append((i, off))
    for path, items in by_path.items():
        try:
            out = subprocess.run([tool, "-f", "-C", "-e", path] + ["0x%x" % o for _, o in items],
                                 capture_output=True, text=True, check=False).stdout.splitlines()
        except OSError:
            continue
        for n, (i, _) in enumerate(items):
            if 2 * n + 1 >= len(out):
                break
            fn, loc = out[2 * n], out[2 * n + 1]
            file, _, line = loc.rpartition(":")
            line = line.split()[0] if line else "0"
            ok = file not in ("", "??") and line.isdigit() and line != "0"
            results[i] = {"file": file if ok else None, "line": int(line) if ok else 0,
                          "column": 0, "function": None if fn == "??" else fn}
    return results


# ---- the profile ----

def load_thresholds(explicit):
    path = explicit or os.environ.get("RCL_PROF_THRESHOLDS") or os.path.join(
        os.path.expanduser("~"), ".config", "rcl", "thresholds.json")
    if not os.path.exists(path):
        if explicit:
            raise RawError("thresholds file %s does not exist" % explicit)
        return dict(DEFAULT_THRESHOLDS)
    try:
        with open(path) as f:
            t = json.load(f)
        return {"convert_cs_percent": float(t["convert_cs_percent"]),
                "borderline_cs_percent": float(t["borderline_cs_percent"]),
                "min_acquisitions": int(t.get("min_acquisitions",
                                              DEFAULT_THRESHOLDS["min_acquisitions"])),
                "source": os.path.abspath(path)}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise RawError("thresholds file %s is not usable: %s" % (path, e))


def recommend(cs_percent, acquisitions, th):
    if acquisitions < th["min_acquisitions"]:
        return "dont"  # start-up or one-off locks: delegation cannot pay for its set-up
    if cs_percent >= th["convert_cs_percent"]:
        return "convert"
    if cs_percent >= th["borderline_cs_percent"]:
        return "borderline"
    return "dont"


def machine_info(hw_counters):
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpus": os.cpu_count() or 1, "model": model, "hw_counters": hw_counters}


def build_profile(raw, argv, thresholds, symbolizer, keep=None):
    """The profile of a parsed raw dump, with its `keep` heaviest locks (None: all) fully
    described; the others are only counted (locks_total), so 100,000 locks stay cheap."""
    npt = raw["ns_per_tick"]
    thread_ns = raw["thread_ticks"] * npt
    mods = Modules(raw["maps"])
    queries, qindex = [], {}

    def ask(kind, addr):
        path, off = mods.find(addr)
        if path is None:
            return None
        key = (kind, path, off)
        if key not in qindex:
            qindex[key] = len(queries)
            queries.append(key)
        return qindex[key]

    ident, acq_i = FIELD["identity_source"], FIELD["acquisitions"]
    hold_i, deleg_i = FIELD["hold_ticks"], FIELD["deleg_hold_ns"]
    overflow = [v for v in raw["records"] if v[ident] == IDENT_OVERFLOW]
    ranked = [v for v in raw["records"] if v[ident] != IDENT_OVERFLOW]
    ranked.sort(key=lambda v: (-(v[hold_i] * npt + v[deleg_i]), -v[acq_i]))
    locks_total = len(ranked)
    if keep is not None:
        ranked = ranked[:keep]
    pending = []
    for rec in map(record_dict, ranked + overflow):
        data_q = ask("DATA", rec["address"]) if rec["address"] else None
        init_q = ask("CODE", rec["init_pc"] - 1) if rec["init_pc"] else None
        site_q = [ask("CODE", s["pc"] - 1) for s in rec["sites"]]
        pending.append((rec, data_q, init_q, site_q))
    answers = symbolize(queries, symbolizer)

    def answer(q):
        return answers[q] if q is not None else None

    def module_of(pc):
        path, off = mods.find(pc)
        return (path, off) if path else (None, pc)

    locks, untracked, missing_debug = [], None, set()
    for rec, data_q, init_q, site_q in pending:
        sites = []
        for s, q in zip(rec["sites"], site_q):
            a = answer(q) or {}
            path, off = module_of(s["pc"] - 1)
            if not a.get("file"):
                missing_debug.add(path or "?")
            sites.append({"file": a.get("file"), "line": a.get("line", 0),
                          "column": a.get("column", 0), "function": a.get("function"),
                          "count": s["count"], "kind": SITE_KINDS[s["kind"] % 4],
                          "module": path, "address": "0x%x" % (s["pc"] - 1)})
        sites.sort(key=lambda s: -s["count"])
        acq = rec["acquisitions"]
        hold_total = rec["hold_ticks"] * npt + rec["deleg_hold_ns"]  # sampled: extrapolated
        holds = rec["holds"] + rec["delegated"]
        by_kind = sum(rec["hold_ticks_by_kind"])
        per_cs = (round(rec["misses"] / rec["misses_cs"], 2)
                  if raw["hw_counters"] and rec["misses_cs"] else None)
        wait_total = rec["wait_ticks"] * npt + rec["deleg_wait_ns"]
        cs_percent = 100.0 * hold_total / thread_ns if thread_ns > 0 else 0.0
        lock = {
            "name": None, "identity": None, "address": "0x%x" % rec["address"],
            "acquisitions": acq, "contended": rec["contended"],
            "contended_percent": round(100.0 * rec["contended"] / acq, 2) if acq else 0.0,
            "wait_ns": {"total": int(wait_total), "avg": int(wait_total / acq) if acq else 0,
                        "max": int(max(rec["wait_max_ticks"] * npt, rec["deleg_wait_max_ns"]))},
            "hold_ns": {"total": int(hold_total), "avg": int(hold_total / holds) if holds else 0,
                        "max": int(max(rec["hold_max_ticks"] * npt, rec["deleg_hold_max_ns"]))},
            "cs_percent": round(cs_percent, 3),
            "wait_percent": round(100.0 * wait_total / thread_ns, 3) if thread_ns > 0 else 0.0,
            "cache_misses_per_cs": per_cs if raw["counter_event"] == 0 else None,
            "recommendation": recommend(cs_percent, acq, thresholds),
            "trylock_failures": rec["trylock_failures"], "timeouts": rec["timeouts"],
            "delegated": rec["delegated"], "generation": rec["generation"],
            "other_sites_count": rec["other_sites"],
            "hold_timed_percent": round(100.0 * rec["holds_timed"] / rec["holds"], 1)
                                  if rec["holds"] else 100.0,
            "sites": sites,
        }
        if raw["counter_event"] == 1:
            lock["task_clock_ns_per_cs"] = per_cs
        if len(raw["kind_names"]) > 1:
            lock["hold_ns_by_core_kind"] = {
                name: int(rec["hold_ticks"] * npt * rec["hold_ticks_by_kind"][i] / by_kind)
                if by_kind else 0
                for i, name in enumerate(raw["kind_names"])}
        if rec["identity_source"] == IDENT_OVERFLOW:
            lock["name"], lock["identity"] = "<untracked locks>", "overflow"
            untracked = lock
            continue
        d = answer(data_q)
        off = mods.find(rec["address"])[1]
        if d and d["start"] <= off < d["start"] + max(d["size"], 1):
            name = d["name"] + ("+%d" % (off - d["start"]) if off != d["start"] else "")
            lock["identity"] = "symbol"
        else:
            a = answer(init_q) or {}
            if a.get("file"):
                name = "site:%s:%d" % (a["file"], a["line"])
            elif a.get("function"):
                name = "site:%s" % a["function"]
            else:
                path, o = module_of(rec["init_pc"] - 1)
                name = "site:%s+0x%x" % (os.path.basename(path) if path else "?", o)
            lock["identity"] = "site"
            lock["initialised_by"] = ("pthread_mutex_init"
                                      if rec["identity_source"] == IDENT_INIT else "first lock")
        if rec["generation"]:
            name += "#%d" % (rec["generation"] + 1)
        lock["name"] = name
        locks.append(lock)
    locks.sort(key=lambda l: (-l["cs_percent"], -l["acquisitions"], l["name"]))
    profile = {
        "schema": SCHEMA,
        "program": argv,
        "machine": machine_info(raw["hw_counters"]),
        "duration_s": round(raw["duration_ns"] / 1e9, 6),
        "thread_time_s": round(thread_ns / 1e9, 6),
        "threads": raw["threads_started"] + 1,
        "thresholds": thresholds,
        "locks": locks,
        "pid": raw["pid"],
        "executable": raw["exe"],
        "ended_by": DUMP_REASONS[raw["dump_reason"] % 4],
        "untracked_locks": raw["locks_untracked"],
        "locks_total": locks_total,
    }
    if raw["dump_reason"] == 2:
        profile["signal"] = raw["signal"]
    if raw["holds_untracked"]:
        profile["holds_untracked"] = raw["holds_untracked"]
    if not raw["hw_counters"]:
        profile["hw_counters_reason"] = counters_reason(raw["hw_errno"])
    if raw["counter_event"] == 1:
        profile["counter_event"] = "task-clock"
    if missing_debug:
        profile["no_debug_info"] = sorted(missing_debug)
    return profile, untracked


def counters_reason(err):
    if err == 0:
        return "disabled (RCL_PROF_COUNTERS=0 / --no-counters)"
    if err in (errno.ENOENT, errno.EOPNOTSUPP, errno.ENODEV, errno.EINVAL):
        return ("this machine has no hardware performance counters (perf_event_open: %s)"
                % os.strerror(err))
    if err in (errno.EACCES, errno.EPERM):
        return ("perf_event_open was refused (%s): lower /proc/sys/kernel/perf_event_paranoid "
                "or run with CAP_PERFMON" % os.strerror(err))
    return "perf_event_open failed: %s" % os.strerror(err)


# ---- the readable report ----

def fmt_ns(ns):
    ns = float(ns)
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return "%.1f %s" % (ns / scale, unit)
    return "%d ns" % ns


def site_text(s):
    where = "%s:%d" % (os.path.basename(s["file"]), s["line"]) if s["file"] else (
        "%s (%s, no debug info)" % (s["function"] or s["address"],
                                    os.path.basename(s["module"] or "?")))
    fn = " %s" % s["function"] if s["file"] and s["function"] else ""
    return "%s%s (%d %s)" % (where, fn, s["count"], s["kind"])


def render(profile, untracked, top, status_line):
    out = []
    w = out.append
    prog = " ".join(profile["program"])
    w("rcl-prof: %s" % prog)
    w("  pid %d, %s; ran %.3f s, %d threads, thread time %.3f s" % (
        profile["pid"], status_line, profile["duration_s"], profile["threads"],
        profile["thread_time_s"]))
    task_clock = profile.get("counter_event") == "task-clock"
    if not profile["machine"]["hw_counters"]:
        w("  %s: n/a, %s" % ("task clock" if task_clock else "cache misses",
                             profile["hw_counters_reason"]))
    elif task_clock:
        w("  counter: task-clock ns per CS instead of cache misses (RCL_PROF_COUNTER_EVENT)")
    th = profile["thresholds"]
    w("  advice: convert at %%CS >= %g, borderline >= %g, if acquired >= %d times (%s)" % (
        th["convert_cs_percent"], th["borderline_cs_percent"], th["min_acquisitions"],
        "defaults after Lozi et al.; see rcl-prof calibrate" if th["source"] == "default"
        else "calibrated: " + th["source"]))
    locks = profile["locks"]
    if not locks and not untracked:
        w("")
        w("No mutex was locked while the program ran: nothing to convert.")
        return "\n".join(out) + "\n"
    w("")
    shown = locks if top <= 0 else locks[:top]
    name_w = min(max([4] + [len(l["name"]) for l in shown]), 48)
    w("  %3s  %-*s %7s %12s %16s %9s %9s %9s %9s %9s  %s" % (
        "#", name_w, "lock", "%CS", "acquired", "contended", "wait avg", "wait max",
        "hold avg", "hold max", "task-ns/CS" if task_clock else "misses/CS", "advice"))
    for i, l in enumerate(shown, 1):
        per_cs = l.get("task_clock_ns_per_cs") if task_clock else l["cache_misses_per_cs"]
        misses = "n/a" if per_cs is None else "%.1f" % per_cs
        w("  %3d  %-*s %7.2f %12d %9d %5.1f%% %9s %9s %9s %9s %9s  %s" % (
            i, name_w, l["name"][:name_w], l["cs_percent"], l["acquisitions"], l["contended"],
            l["contended_percent"], fmt_ns(l["wait_ns"]["avg"]), fmt_ns(l["wait_ns"]["max"]),
            fmt_ns(l["hold_ns"]["avg"]), fmt_ns(l["hold_ns"]["max"]), misses,
            l["recommendation"]))
        for s in l["sites"][:3]:
            w("  %3s    at %s" % ("", site_text(s)))
        more = len(l["sites"]) - 3 + (1 if l["other_sites_count"] else 0)
        if more > 0:
            w("  %3s    ... and more call sites (see --json)" % "")
        if "hold_ns_by_core_kind" in l:
            w("  %3s    hold by core kind: %s" % ("", ", ".join(
                "%s %s" % (k, fmt_ns(v)) for k, v in l["hold_ns_by_core_kind"].items())))
    if len(shown) < profile["locks_total"]:
        w("  (%d more locks below the top %d; --top 0 shows all)" % (
            profile["locks_total"] - len(shown), top))
    if untracked:
        w("")
        w("  %d locks were not tracked one by one (the lock table was full, --max-locks);"
          " together: %d acquisitions, %.2f %%CS" % (
              profile["untracked_locks"], untracked["acquisitions"], untracked["cs_percent"]))
    if profile.get("holds_untracked"):
        w("")
        w("  %d critical sections were counted but not timed: their thread held more than 32 "
          "locks at once" % profile["holds_untracked"])
    if profile.get("no_debug_info"):
        w("")
        w("  call sites unknown for code without debug info (%s): rebuild with -g to get "
          "file:line" % ", ".join(os.path.basename(p) for p in profile["no_debug_info"]))
    return "\n".join(out) + "\n"


# ---- running a program ----

def resolve_program(name):
    """(path, None) or (None, (status, message)) like a POSIX shell: 127 not found, 126 not
    executable."""
    if "/" in name:
        if not os.path.exists(name):
            return None, (127, "%s: No such file or directory" % name)
        if os.path.isdir(name) or not os.access(name, os.X_OK):
            return None, (126, "%s: Permission denied" % name)
        return name, None
    denied = None
    for d in os.environ.get("PATH", "/usr/bin:/bin").split(":"):
        p = os.path.join(d or ".", name)
        if os.path.isfile(p):
            if os.access(p, os.X_OK):
                return p, None
            denied = denied or p
    if denied:
        return None, (126, "%s: Permission denied" % denied)
    return None, (127, "%s: command not found" % name)


def find_preload():
    env = os.environ.get("RCL_PROF_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.realpath(__file__))
    for cand in (os.path.join(here, "librcl-prof.so"),
                 os.path.join(here, "..", "lib", "librcl-prof.so")):
        if os.path.exists(cand):
            return os.path.abspath(cand)
    return None


def die(msg, status=EXIT_TOOL_ERROR):
    sys.stderr.write("rcl-prof: %s\n" % msg)
    sys.exit(status)


def write_outputs(profile, untracked, args, status_line):
    text = render(profile, untracked, args.top, status_line)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stderr.write(text)
    if args.json:
        limit = args.json_max_locks
        if 0 < limit < len(profile["locks"]):
            profile = dict(profile, locks=profile["locks"][:limit])
        profile["locks_omitted"] = profile["locks_total"] - len(profile["locks"])
        with open(args.json, "w") as f:
            json.dump(profile, f, indent=1 if len(profile["locks"]) <= 1000 else None)
            f.write("\n")


def locks_to_keep(args):
    """How many locks the outputs need described: the report's top N, the JSON's limit."""
    if args.top <= 0 or (args.json and args.json_max_locks <= 0):
        return None
    return max(args.top, args.json_max_locks if args.json else 0)


def status_text(status):
    if status >= 128 + 1 and status < 128 + 65:
        try:
            return "killed by %s" % signal.Signals(status - 128).name
        except ValueError:
            pass
    return "exit status %d" % status


def cmd_run(args):
    if not args.command:
        die("no program given: rcl-prof [options] -- <program> [args]", 2)
    path, err = resolve_program(args.command[0])
    if err:
        sys.stderr.write("rcl-prof: cannot run %s\n" % err[1])
        return err[0]
    lib = find_preload()
    if not lib:
        die("librcl-prof.so not found next to rcl-prof (set RCL_PROF_LIB)")
    if not elf_has_interp(path):
        sys.stderr.write("rcl-prof: warning: %s is statically linked; LD_PRELOAD cannot "
                         "interpose its locks\n" % path)
    try:
        thresholds = load_thresholds(args.thresholds)
    except RawError as e:
        die(str(e), 2)
    rawdir = tempfile.mkdtemp(prefix="rcl-prof.")
    env = dict(os.environ)
    env["LD_PRELOAD"] = lib + (" " + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    env["RCL_PROF_RAW_DIR"] = rawdir
    env["RCL_PROF_PARENT"] = str(os.getpid())
    if args.no_counters:
        env["RCL_PROF_COUNTERS"] = "0"
    if args.max_locks:
        env["RCL_PROF_MAX_LOCKS"] = str(args.max_locks)
    try:
        child = subprocess.Popen(args.command, executable=path, env=env)
    except OSError as e:
        shutil.rmtree(rawdir, ignore_errors=True)
        sys.stderr.write("rcl-prof: cannot run %s: %s\n" % (args.command[0], e.strerror))
        return 126 if e.errno in (errno.EACCES, errno.ENOEXEC) else 127

    def forward(sig, _frame):
        try:
            child.send_signal(sig)
        except OSError:
            pass
    # The terminal sends ^C to the whole group; the program dies of it (and dumps), we report.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGHUP, forward)
    rc = child.wait()
    status = 128 - rc if rc < 0 else rc
    try:
        raw_path = os.path.join(rawdir, "rcl-prof.%d.raw" % child.pid)
        others = sorted(f for f in os.listdir(rawdir) if f != os.path.basename(raw_path))
        if args.keep_raw:
            os.makedirs(args.keep_raw, exist_ok=True)
            for f in os.listdir(rawdir):
                shutil.copy(os.path.join(rawdir, f), args.keep_raw)
        if not os.path.exists(raw_path):
            sys.stderr.write("rcl-prof: %s (%s) wrote no profile (killed by SIGKILL, or it does "
                             "not load librcl-prof.so)\n" % (args.command[0], status_text(status)))
            return status
        try:
            raw = parse_raw(raw_path)
        except RawError as e:
            sys.stderr.write("rcl-prof: %s\n" % e)
            return status
        line = status_text(status)
        program = args.command
        if not raw["records"] and others:
            # A launcher (a shell, a script) that locked nothing itself: report the process
            # that locked the most in its place.
            best = busiest(os.path.join(rawdir, f) for f in others)
            if best:
                others.remove(os.path.basename(best[0]))
                others.append(os.path.basename(raw_path))
                raw = best[1]
                program = [raw["exe"]]
                line += "; %s locked nothing itself: this is its child %s" % (
                    args.command[0], raw["exe"])
        profile, untracked = build_profile(raw, program, thresholds,
                                           find_symbolizer(args.symbolizer), locks_to_keep(args))
        profile["exit_status"] = status
        if others:
            profile["other_processes"] = len(others)
            line += "; %d other process(es) profiled apart (--keep-raw DIR, then rcl-prof " \
                    "report DIR/FILE)" % len(others)
        write_outputs(profile, untracked, args, line)
    finally:
        shutil.rmtree(rawdir, ignore_errors=True)
    return status


def busiest(paths):
    """(path, parsed raw) of the dump with the most acquisitions, or None."""
    best, best_acq = None, 0
    for path in paths:
        try:
            raw = parse_raw(path)
        except (RawError, OSError):
            continue
        acq = sum(v[FIELD["acquisitions"]] + v[FIELD["delegated"]] for v in raw["records"])
        if acq > best_acq:
            best, best_acq = (path, raw), acq
    return best


def cmd_report(args):
    try:
        thresholds = load_thresholds(args.thresholds)
        raw = parse_raw(args.raw)
    except (RawError, OSError) as e:
        die(str(e), 2)
    profile, untracked = build_profile(raw, [raw["exe"]], thresholds,
                                       find_symbolizer(args.symbolizer), locks_to_keep(args))
    write_outputs(profile, untracked, args, "from %s" % args.raw)
    return 0


# ---- calibration ----

def thresholds_path():
    return os.environ.get("RCL_PROF_THRESHOLDS") or os.path.join(
        os.path.expanduser("~"), ".config", "rcl", "thresholds.json")


def cmd_calibrate(args):
    here = os.path.dirname(os.path.realpath(__file__))
    bench = os.environ.get("RCL_PROF_CALIBRATE_BENCH") or os.path.join(here, "rcl-prof-calibrate")
    if not os.access(bench, os.X_OK):
        die("the calibration benchmark %s is missing (build target rcl-prof-calibrate)" % bench)
    cmd = [bench, "--duration-ms", str(args.duration_ms)]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    sys.stderr.write("rcl-prof: measuring pthread vs rcl_delegate (%s)\n" % " ".join(cmd))
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        die("calibration benchmark failed (status %d): %s" % (res.returncode, res.stderr.strip()))
    rows = []
    for line in res.stdout.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        f = line.split(",")
        if f[0] == "cs_percent":
            continue
        rows.append({"cs_percent": float(f[0]), "pthread_ops_s": float(f[1]),
                     "rcl_ops_s": float(f[2])})
    if not rows:
        die("calibration benchmark printed no results")
    for r in rows:
        r["speedup"] = r["rcl_ops_s"] / r["pthread_ops_s"] if r["pthread_ops_s"] else 0.0
    convert = next((r["cs_percent"] for r in rows
                    if all(x["speedup"] >= 1.0 for x in rows if x["cs_percent"] >= r["cs_percent"])),
                   None)
    borderline = next((r["cs_percent"] for r in rows
                       if all(x["speedup"] >= 0.8 for x in rows
                              if x["cs_percent"] >= r["cs_percent"])), None)
    top = rows[-1]["cs_percent"]
    note = None
    if convert is None:
        convert = 100.0
        note = ("rcl_delegate never beat pthread up to %g %% CS on this machine: only locks above "
                "the measured range are recommended" % top)
    if borderline is None or borderline > convert:
        borderline = convert
    result = {"convert_cs_percent": convert, "borderline_cs_percent": borderline,
              "machine": machine_info(False), "threads": args.threads or None,
              "measured": rows,
              "rule": "convert: smallest CS%% from which rcl_delegate's throughput >= pthread's "
                      "at every larger CS%%; borderline: same with >= 0.8 x pthread's"}
    if note:
        result["note"] = note
    out = args.out or thresholds_path()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    sys.stdout.write("%8s %14s %14s %8s\n" % ("CS %", "pthread ops/s", "rcl ops/s", "rcl/pth"))
    for r in rows:
        sys.stdout.write("%8.1f %14.0f %14.0f %8.2f\n" % (
            r["cs_percent"], r["pthread_ops_s"], r["rcl_ops_s"], r["speedup"]))
    sys.stdout.write("convert >= %g %%, borderline >= %g %%; written to %s\n" % (
        convert, borderline, out))
    if note:
        sys.stdout.write("note: %s\n" % note)
    return 0


# ---- command line ----

USAGE = """\
rcl-prof [options] [--] <program> [args...]   profile a program, print the report
rcl-prof report [options] <file.raw>          report from a raw dump (LD_PRELOAD used by hand)
rcl-prof calibrate [--out FILE]               measure this machine's thresholds"""


def common_options(p):
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the report to FILE (default: standard error)")
    p.add_argument("--json", metavar="FILE", help="write profile.json (docs/profile-json.md)")
    p.add_argument("--json-max-locks", type=int, default=1000, metavar="N",
                   help="list at most the N heaviest locks in the JSON (default 1000, 0: all); "
                        "the rest are counted in locks_omitted")
    p.add_argument("--top", type=int, default=20, metavar="N",
                   help="show the N locks with the most %%CS (default 20, 0: all)")
    p.add_argument("--thresholds", metavar="FILE",
                   help="thresholds JSON (default: $RCL_PROF_THRESHOLDS, else "
                        "~/.config/rcl/thresholds.json, else convert 15 %%, borderline 5 %%)")
    p.add_argument("--symbolizer", metavar="PATH",
                   help="llvm-symbolizer or addr2line to use (default: llvm-symbolizer-19)")


def main(argv):
    if argv and argv[0] == "report":
        p = argparse.ArgumentParser(prog="rcl-prof report", epilog=DEFINITIONS,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
        common_options(p)
        p.add_argument("raw", help="rcl-prof.<pid>.raw written by librcl-prof.so")
        return cmd_report(p.parse_args(argv[1:]))
    if argv and argv[0] == "calibrate":
        p = argparse.ArgumentParser(prog="rcl-prof calibrate", description=(
            "Run the pthread-vs-rcl_delegate microbenchmark at several CS percentages and "
            "store the thresholds where rcl-prof finds them."))
        p.add_argument("--out", metavar="FILE", help="default: $RCL_PROF_THRESHOLDS, else "
                       "~/.config/rcl/thresholds.json")
        p.add_argument("--duration-ms", type=int, default=300, metavar="MS",
                       help="time per measured point (default 300)")
        p.add_argument("--threads", type=int, default=0, help="client threads (default: cpus)")
        return cmd_calibrate(p.parse_args(argv[1:]))
    p = argparse.ArgumentParser(
        prog="rcl-prof", usage=USAGE, epilog=DEFINITIONS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a program with librcl-prof.so preloaded and report, per pthread mutex, "
                    "how much of the threads' time is spent in its critical sections, and which "
                    "locks are worth converting to RCL. The program's exit status is passed "
                    "through (127/126 when it cannot be run, 128+N when killed by signal N; "
                    "125 when rcl-prof itself fails).")
    common_options(p)
    p.add_argument("--keep-raw", metavar="DIR", help="keep the raw dumps in DIR")
    p.add_argument("--no-counters", action="store_true",
                   help="do not open hardware cache-miss counters")
    p.add_argument("--max-locks", type=int, metavar="N",
                   help="distinct locks tracked one by one (default 131072)")
    p.add_argument("command", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.command and args.command[0] == "--":
        args.command = args.command[1:]
    return cmd_run(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
