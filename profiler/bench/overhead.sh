#!/bin/sh
# overhead.sh BUILD_DIR [RUNS] [THREADS ITERS LOCAL_LOOPS]
# Slowdown of profiler/bench/lock_heavy with librcl-prof.so preloaded, against the same binary
# without it: RUNS alternating pairs (default 7), median of each side, ratio. The time is the
# program's own loop time (start-up and the report are not included). Hardware counters are
# off (RCL_PROF_COUNTERS=0), as on the reference machine. Writes one CSV line:
#   threads,iters,local_loops,base_ns_median,prof_ns_median,slowdown_percent
set -eu
build=$(cd "${1:?usage: overhead.sh BUILD_DIR [RUNS] [THREADS ITERS LOCAL_LOOPS]}" && pwd)
runs=${2:-9}
threads=${3:-2}
iters=${4:-1000000}
local_loops=${5:-50}
bench="$build/profiler/lock_heavy"
lib="$build/profiler/librcl-prof.so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
    "$bench" "$threads" "$iters" "$local_loops" >> "$tmp/base"
    (cd "$tmp" && RCL_PROF_COUNTERS=0 RCL_PROF_RAW_DIR="$tmp" LD_PRELOAD="$lib" \
        "$bench" "$threads" "$iters" "$local_loops" >> "$tmp/prof")
    i=$((i + 1))
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
minimum() { sort -n "$1" | head -n 1; }
echo "threads,iters,local_loops,base_ns_median,prof_ns_median,slowdown_median_percent,base_ns_min,prof_ns_min,slowdown_min_percent"
awk -v b="$(median "$tmp/base")" -v p="$(median "$tmp/prof")" -v bm="$(minimum "$tmp/base")" \
    -v pm="$(minimum "$tmp/prof")" -v t="$threads" -v n="$iters" -v l="$local_loops" \
    'BEGIN { printf "%d,%d,%d,%d,%d,%.1f,%d,%d,%.1f\n", t, n, l, b, p, 100.0 * (p - b) / b, bm, pm, 100.0 * (pm - bm) / bm }'
