"""Runs `REWRITE --dry-run --quiet --facts-dir=DIR UNIT -- -DNAME=fI` for I in 1..N, all at
once (facts-concurrent-compiles.test), and exits non-zero when one of them failed."""
import subprocess
import sys

rewrite, facts, unit, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
runs = [subprocess.Popen([rewrite, "--dry-run", "--quiet", "--facts-dir=" + facts, unit, "--",
                          "-DNAME=f%d" % i]) for i in range(1, count + 1)]
sys.exit(max(run.wait() for run in runs))
