#!/usr/bin/env python3
"""Converted and refused critical sections of a build made with CC=rcl-cc, from the reports
it left in RCL_CC_REPORT (one JSON file per translation unit), used by the e2e scripts
(memcached.sh, xz-utils.sh, libuv.sh).

    rcl-cc-report.py NAME REPORT_DIR [--files]

Prints `NAME: C critical sections converted, R refused` (plus `, N not compiled` when a
translation unit fell back to the original), then the refusals by reason, most frequent first;
--files adds one line per source file. A section is counted once, by file, line and column:
a file compiled twice (libtool's PIC and non-PIC objects, memcached and memcached-debug, a
static and a shared library) is one set of sections. A section refused in one compile and
converted in another (a different -D, or `rcl build`'s second pass) counts as converted; of two
refusals the later compile's reason counts. test/e2e/corpus/summary.py imports collect() from
here.
"""
import collections
import json
import os
import sys


def collect(directory):
    """The sections of every report in DIRECTORY, each once: {(file, line, column): (status,
    reason)}, and the reports' count (one per translation unit compiled). A converted section's
    reason is empty, or what makes the server run it as its caller (its `as_caller`)."""
    status = {}  # (file, line, column) -> (status, reason)
    rank = {"converted": 2, "not-compiled": 1, "refused": 0}
    # Oldest first: of two compiles with the same outcome the later one tells why (`rcl build`'s
    # second pass refuses for a callee's hazard what its first refused as waiting for facts).
    entries = sorted(os.listdir(directory),
                     key=lambda e: (os.path.getmtime(os.path.join(directory, e)), e)) \
        if os.path.isdir(directory) else []
    for entry in entries:
        with open(os.path.join(directory, entry)) as f:
            report = json.load(f)
        for lock in report["locks"]:
            for s in lock["sections"]:
                key = (os.path.normpath(s["file"]), s["line"], s["column"])
                new = (s["status"], s.get("reason", s.get("as_caller", "")))
                if new[0] not in rank:
                    continue
                if key not in status or rank[new[0]] >= rank[status[key][0]]:
                    status[key] = new
    return status, len(entries)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    name, directory, per_file = argv[1], argv[2], "--files" in argv[3:]
    status, _ = collect(directory)
    counts = collections.Counter(st for st, _ in status.values())
    reasons = collections.Counter(r for st, r in status.values() if st == "refused")
    line = "%s: %d critical sections converted, %d refused" % (
        name, counts["converted"], counts["refused"])
    if counts["not-compiled"]:
        line += ", %d not compiled (the file fell back to the original)" % counts["not-compiled"]
    print(line)
    for reason, n in reasons.most_common():
        print("  %3d  %s" % (n, reason))
    if per_file:
        files = collections.defaultdict(collections.Counter)
        for (path, _, _), (st, _) in status.items():
            files[path][st] += 1
        root = os.path.commonpath([os.path.dirname(p) for p in files]) if files else ""
        for path in sorted(files):
            print("  %s: %d converted, %d refused" % (os.path.relpath(path, root or "."),
                                                      files[path]["converted"],
                                                      files[path]["refused"]))


if __name__ == "__main__":
    main(sys.argv)
