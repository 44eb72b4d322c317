"""Weighted coverage (issue 30, item 12): the share of a suite's lock acquisitions that ran
through converted sections.

corpus.sh runs a package's suite once more on the converted build in RCL_MODE=delegate with
rcl-prof's preload (librcl-prof.so, RCL_PROF_RAW_DIR=PKG_DIR/prof): every process of the suite
that locked something leaves a raw dump (python/rcltools/rawdump.py) whose records count, per
mutex, every acquisition (`acquisitions`) and, of those, the ones librcl delegated (`delegated`,
counted through librcl's hooks at the end of each rcl_delegate). A section left in place is a
pthread_mutex_lock (or trylock, timedlock) the preload counts without delegating.

librcl's own few locks at start-up (its init lock, a mailbox's allocation, hwloc's: about three
per process) count as left in place: the share is a lower bound.

Only the package's own processes count: a dump whose executable lies outside the converted tree
(the shell, make, a system tool the suite runs) is counted apart (`other_processes`), so the
share is the package's, not its test harness's.

    acquisitions.py PROF_DIR TREE     prints the share as JSON
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "python"))
from rcltools import rawdump  # noqa: E402


def share(prof_dir, tree):
    """The acquisitions of the suite's processes under tree: {processes, acquisitions,
    delegated, share (None when nothing was acquired), other_processes, unreadable}."""
    tree = os.path.realpath(tree) + os.sep
    acq = deleg = procs = other = bad = 0
    acq_i, deleg_i = rawdump.FIELD["acquisitions"], rawdump.FIELD["delegated"]
    for path in sorted(glob.glob(os.path.join(prof_dir, "*.raw"))):
        try:
            raw = rawdump.parse(path)
        except (OSError, rawdump.RawError):
            bad += 1  # a process killed while it wrote its dump
            continue
        exe = os.path.realpath(raw["exe"]) if raw["exe"] else ""
        if not exe.startswith(tree):
            other += 1
            continue
        procs += 1
        for rec in raw["records"]:
            acq += rec[acq_i]
            deleg += rec[deleg_i]
    return {"processes": procs, "acquisitions": acq, "delegated": deleg,
            "share": round(deleg / acq, 4) if acq else None,
            "other_processes": other, "unreadable": bad}


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    json.dump(share(sys.argv[1], sys.argv[2]), sys.stdout, indent=2)
    sys.stdout.write("\n")
