#!/usr/bin/env bash
# The main job on the bundled example: set everything up, show where the servers go, run the
# example with delegation and without (RCL_MODE=local, same binary), and print the physical
# limits next to the runtime's own figures. Writes out/demo/*.{txt,json,csv}.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
OUT=out/demo
mkdir -p "$OUT"
B=build
THREADS=${THREADS:-2}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-1}

echo
echo "== 1/4 topology and server placement (rcl-info)"
$B/runtime/rcl-info | tee "$OUT/rcl-info.txt"
$B/runtime/rcl-info --json > "$OUT/rcl-info.json"

echo
echo "== 2/4 example 'bank' ($THREADS threads, ${SECONDS_PER_RUN}s each): delegated vs local"
$B/examples/bank "$THREADS" "$SECONDS_PER_RUN" | tee "$OUT/bank-delegate.txt"
RCL_MODE=local $B/examples/bank "$THREADS" "$SECONDS_PER_RUN" | tee "$OUT/bank-local.txt"

echo
echo "== 3/4 physical limits vs the runtime (median of 5)"
$B/bench/rcl-bench-probes --reps 5 | tee "$OUT/probes.txt"
$B/bench/rcl-bench-probes --reps 5 --json > "$OUT/probes.json"

echo
echo "== 4/4 microbenchmark: $THREADS threads, CS touching 1/5/20 shared cache lines"
$B/bench/rcl-bench-micro --locks pthread,mcs,rcl,rcl-local --threads "$THREADS" --seconds 0.5 \
    > "$OUT/micro.csv"
column -t -s, "$OUT/micro.csv"
echo
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "results: $OUT/ (rcl-info.json, probes.json, micro.csv)"
