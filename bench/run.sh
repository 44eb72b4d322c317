#!/usr/bin/env bash
# The whole lock evaluation in one command (docs/benchmarks.md):
#   bench/run.sh [--quick] [-o DIR] [--build DIR] [--rounds N]
# Runs the probes and rcl-bench-micro (contention, oversubscription, emulated asymmetry) for
# every lock, interleaved round by round, and writes CSV, SVG plots and DIR/report.md.
# --quick: one round of short runs (about a minute on 2 cores). Runs under `nice`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# Debian's python3 has python3-matplotlib; another python3 first on PATH may not.
py=python3
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then py=/usr/bin/python3; fi
exec nice -n 10 "$py" "$here/evaluate.py" "$@"
