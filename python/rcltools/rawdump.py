"""The raw dump librcl-prof.so writes when a profiled process ends (profiler/src/dump.c):
struct raw_header, the executable's path, the text of /proc/self/maps, then `nrecords` struct
lock_record, exactly as profiler/src/prof.h lays them out. test/profiler/dump-layout.test
compares layout() with the offsets the C compiler gives prof.h's structs, so the two cannot
drift apart unnoticed: change both together and bump RAW_VERSION.

    python3 -m rcltools.rawdump     prints layout()
"""
import struct

MAGIC = b"RCLPROF\0"
RAW_VERSION = 5
SITES = 6  # PROF_SITES
KINDS = 4  # PROF_KINDS
SITE_KINDS = ("lock", "trylock", "timedlock", "delegate")  # enum site_kind
IDENT_INIT, IDENT_FIRST_LOCK, IDENT_OVERFLOW = 0, 1, 2  # enum identity_source
DUMP_REASONS = ("exit", "library destructor", "fatal signal", "_exit")  # enum dump_reason

# struct raw_header, field by field
HEADER_FIELDS = (
    ("magic", "8s"), ("version", "I"), ("header_size", "I"), ("record_size", "I"),
    ("sites_per_record", "I"), ("pid", "i"), ("ppid", "i"), ("start_ticks", "Q"),
    ("end_ticks", "Q"), ("start_ns", "Q"), ("end_ns", "Q"), ("thread_ticks", "Q"),
    ("threads_started", "Q"), ("nrecords", "Q"), ("locks_untracked", "Q"),
    ("holds_untracked", "Q"), ("hw_counters", "i"), ("hw_errno", "i"), ("nkinds", "i"),
    ("dump_reason", "i"), ("signal", "i"), ("exe_len", "i"), ("counter_event", "i"),
    ("count_every", "i"), ("maps_len", "Q"), ("kind_names", "%ds" % (16 * KINDS)))
HEADER = struct.Struct("<" + "".join(f for _, f in HEADER_FIELDS))

# struct lock_record, field by field (sites[i] and hold_ticks_by_kind[i] flattened); the
# record is padded to its 64-byte alignment
RECORD_FIELDS = (
    ("acquisitions", "Q"), ("contended", "Q"), ("holds", "Q"), ("holds_timed", "Q"),
    ("hold_ticks", "Q"), ("hold_max_ticks", "Q"), ("wait_ticks", "Q"), ("pad0", "I"),
    ("has_delegated", "I")) + tuple(
    (name % i, f) for i in range(SITES) for name, f in (
        ("site%d_pc", "Q"), ("site%d_count", "Q"), ("site%d_kind", "I"), ("site%d_pad", "I"))) + (
    ("other_sites", "Q"), ("wait_max_ticks", "Q"), ("trylock_failures", "Q"), ("timeouts", "Q"),
    ("misses", "Q"), ("misses_cs", "Q")) + tuple(("kind%d" % k, "Q") for k in range(KINDS)) + (
    ("delegated", "Q"), ("deleg_hold_ns", "Q"), ("deleg_hold_max_ns", "Q"),
    ("deleg_wait_ns", "Q"), ("deleg_wait_max_ns", "Q"), ("address", "Q"), ("init_pc", "Q"),
    ("identity_source", "I"), ("generation", "I"))
_fmt = "<" + "".join(f for _, f in RECORD_FIELDS)
RECORD = struct.Struct(_fmt + "%dx" % (-struct.calcsize(_fmt) % 64))
FIELD = {name: i for i, (name, _) in enumerate(RECORD_FIELDS)}


class RawError(Exception):
    pass


def record_dict(v):
    """A record tuple (RECORD.iter_unpack) as a dict, with its sites and hold time by kind."""
    rec = {name: v[i] for i, (name, _) in enumerate(RECORD_FIELDS) if not name.startswith("site")}
    rec["hold_ticks_by_kind"] = [rec.pop("kind%d" % k) for k in range(KINDS)]
    base = FIELD["site0_pc"]
    rec["sites"] = [{"pc": v[i], "count": v[i + 1], "kind": v[i + 2]}
                    for i in range(base, base + 4 * SITES, 4) if v[i] and v[i + 1]]
    return rec


def parse(path):
    """The dump at path as a dict; its records stay tuples (record_dict() for those shown)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HEADER.size or data[:8] != MAGIC:
        raise RawError("%s is not an rcl-prof raw file" % path)
    h = dict(zip((name for name, _ in HEADER_FIELDS), HEADER.unpack_from(data, 0)))
    if h["version"] != RAW_VERSION or h["header_size"] != HEADER.size or \
            h["record_size"] != RECORD.size or h["sites_per_record"] != SITES:
        raise RawError("%s: raw format version %d does not match this rcl-prof" % (
            path, h["version"]))
    off = h["header_size"]
    exe = data[off:off + h["exe_len"]].decode("utf-8", "replace")
    off += h["exe_len"]
    maps = data[off:off + h["maps_len"]].decode("utf-8", "replace")
    off += h["maps_len"]
    size = h["record_size"]
    end = min(off + h["nrecords"] * size, off + (len(data) - off) // size * size)
    records = list(RECORD.iter_unpack(data[off:end]))
    names = [h["kind_names"][i * 16:(i + 1) * 16].split(b"\0")[0].decode() for i in range(KINDS)]
    ticks = h["end_ticks"] - h["start_ticks"]
    return {
        "pid": h["pid"], "ppid": h["ppid"], "exe": exe, "maps": maps, "records": records,
        "ns_per_tick": (h["end_ns"] - h["start_ns"]) / ticks if ticks > 0 else 1.0,
        "duration_ns": h["end_ns"] - h["start_ns"], "thread_ticks": h["thread_ticks"],
        "threads_started": h["threads_started"], "locks_untracked": h["locks_untracked"],
        "holds_untracked": h["holds_untracked"], "hw_counters": bool(h["hw_counters"]),
        "hw_errno": h["hw_errno"], "kind_names": names[:max(h["nkinds"], 1)],
        "dump_reason": h["dump_reason"], "signal": h["signal"],
        "counter_event": h["counter_event"], "count_every": max(h["count_every"], 1),
    }


def _offsets(prefix, fields):
    out, fmt = [], "<"
    for name, f in fields:
        out.append("%s.%s %d %d" % (prefix, name, struct.calcsize(fmt), struct.calcsize("<" + f)))
        fmt += f
    return out


def layout():
    """Every constant, field offset and size this module assumes, one per line, in the form
    test/profiler/Inputs/dump_layout.c prints them from prof.h."""
    lines = ["magic %s" % MAGIC[:-1].decode(), "version %d" % RAW_VERSION, "sites %d" % SITES,
             "kinds %d" % KINDS, "header_size %d" % HEADER.size, "record_size %d" % RECORD.size]
    lines += ["site_kind.%s %d" % (k, i) for i, k in enumerate(SITE_KINDS)]
    lines += ["identity.init %d" % IDENT_INIT, "identity.first_lock %d" % IDENT_FIRST_LOCK,
              "identity.overflow %d" % IDENT_OVERFLOW]
    lines += ["dump_reason.%s %d" % (name, i) for i, name in enumerate(
        ("exit", "destructor", "signal", "underscore_exit")[:len(DUMP_REASONS)])]
    lines += _offsets("header", HEADER_FIELDS) + _offsets("record", RECORD_FIELDS)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(layout(), end="")
