#!/bin/sh
# memcached 1.6.18, profile-guided: build the original (-g -O2, clang-19), profile it with
# rcl-prof under a memaslap load, convert the locks the profile selects with rcl-cc, run
# memcached's own `make test` on the converted build, then benchmark original vs converted vs
# converted with RCL_MODE=local vs converted with RCL_MODE=adaptive under the same load and
# memcached thread counts.
#
#   bench/apps/memcached.sh [BUILD_DIR] [OUT_DIR]          (defaults: build, out/memcached)
#
# Environment (defaults in brackets):
#   MC_WORK          sources and builds [/tmp/rcl-memcached-bench]
#   MC_THREADS       memcached -t values to benchmark ["1 2 4"]
#   MC_RUNS          runs per (variant, -t) [3]
#   MC_SECONDS       memaslap run time per run, s [10]
#   MC_LOAD_THREADS  memaslap -T [2];  MC_CONCURRENCY  memaslap -c [64]
#   MC_PROFILE_THREADS  memcached -t while profiling [4]; MC_PROFILE_SECONDS [10]
#   MC_TOP_N         locks to convert when the profile recommends none [3]
#   MC_SKIP_TEST=1   skip `make test` on the converted build (~7 min on 2 cores)
#   MC_SKIP_BENCH=1  stop after the build and the test
#   MC_PORT          TCP port [21311]
#
# Output in OUT_DIR: profile.json + profile.txt (rcl-prof), selected.txt (the locks rcl-cc was
# given, RCL_CC_PROFILE_LOCK) + selected-summary.json, threads.txt (the converted server's threads and their CPUs),
# rcl-cc-reports/ (one rcl-rewrite report per translation unit),
# make-test.log, bench.csv + bench.json (every run), memaslap/ (each run's output), summary.md.
# Needs Debian 12 and root the first time (deb-src, libevent-dev, perl, dpkg-dev,
# libmemcached-tools). Exit status non-zero when a build, make test or a benchmark run fails.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
mkdir -p "${2:-$ROOT/out/memcached}"
OUT=$(cd "${2:-$ROOT/out/memcached}" && pwd)
WORK=${MC_WORK:-/tmp/rcl-memcached-bench}
THREADS=${MC_THREADS:-1 2 4}
PORT=${MC_PORT:-21311}
LOAD="--seconds ${MC_SECONDS:-10} --load-threads ${MC_LOAD_THREADS:-2} --concurrency ${MC_CONCURRENCY:-64} --port $PORT"
PY="python3 $HERE/memcached.py"
RCL_CC=$BUILD/rewriter/rcl-cc
for tool in "$RCL_CC" "$BUILD/rewriter/rcl-rewrite" "$BUILD/profiler/rcl-prof"; do
    [ -x "$tool" ] || { echo "memcached-bench: $tool missing; build $BUILD first (scripts/setup.sh)" >&2; exit 2; }
done
say() { echo "memcached-bench: $*"; }
status=0

say "[1/6] memcached 1.6.18 source (Debian) in $WORK"
RCL_E2E_DIR=$ROOT/test/e2e
. "$RCL_E2E_DIR/memcached-source.sh"
rcl_memcached_fetch "$WORK"
command -v memcaslap >/dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q libmemcached-tools >/dev/null

say "[2/6] building the original (CC=clang-19 CFLAGS='-g -O2') in $WORK/orig"
rm -rf "$WORK/orig" "$WORK/rcl"
cp -r "$WORK/memcached-1.6.18" "$WORK/orig"
(cd "$WORK/orig" && ./configure CC=clang-19 CFLAGS="-g -O2" >configure.log 2>&1 &&
    make -j"$(nproc)" >make.log 2>&1) || { say "original build failed, see $WORK/orig"; exit 1; }

say "[3/6] profiling: rcl-prof -- memcached -t ${MC_PROFILE_THREADS:-4} under memaslap for ${MC_PROFILE_SECONDS:-10} s"
rm -f "$OUT/profile.json"
(cd "$WORK/orig" && $PY load --seconds "${MC_PROFILE_SECONDS:-10}" --load-threads "${MC_LOAD_THREADS:-2}" \
    --concurrency "${MC_CONCURRENCY:-64}" --port "$PORT" --out "$OUT/profile-memaslap.txt" -- \
    "$BUILD/profiler/rcl-prof" --json "$OUT/profile.json" --json-max-locks 0 -o "$OUT/profile.txt" -- \
    ./memcached -u root -p "$PORT" -U 0 -l 127.0.0.1 -m 1024 -t "${MC_PROFILE_THREADS:-4}")
[ -s "$OUT/profile.json" ] || { say "rcl-prof wrote no profile.json, see $OUT/profile.txt"; exit 1; }
sed -n '1,20p' "$OUT/profile.txt"

say "[4/6] selecting the locks to convert"
$PY select --profile "$OUT/profile.json" --src "$WORK/orig" --rewrite "$BUILD/rewriter/rcl-rewrite" \
    --top "${MC_TOP_N:-3}" --out "$OUT/selected.txt" || { say "nothing to convert"; exit 1; }

# The profile as rcl-prof wrote it; its call sites, in the profiled copy, read in the new one.
export RCL_CC_PROFILE="$OUT/profile.json" RCL_CC_PROFILE_LOCK="$(cat "$OUT/selected.txt")"
export RCL_CC_PROFILE_PREFIX_MAP="$WORK/orig=$WORK/rcl"
say "[5/6] building the converted copy with CC=rcl-cc RCL_CC_PROFILE=$RCL_CC_PROFILE RCL_CC_PROFILE_LOCK=$RCL_CC_PROFILE_LOCK in $WORK/rcl"
cp -r "$WORK/memcached-1.6.18" "$WORK/rcl"
rm -rf "$OUT/rcl-cc-reports"
(cd "$WORK/rcl" && ./configure CC="$RCL_CC" CFLAGS="-g -O2" >configure.log 2>&1 &&
    RCL_CC_REPORT="$OUT/rcl-cc-reports" make -j"$(nproc)" >make.log 2>&1) ||
    { say "converted build failed, see $WORK/rcl/make.log"; exit 1; }
fallbacks=$(grep -c 'rcl-cc: warning' "$WORK/rcl/make.log" || true)
python3 - "$OUT/rcl-cc-reports" <<'PY'
import json, os, sys
seen = {}
for name in sorted(os.listdir(sys.argv[1])):
    for lock in json.load(open(os.path.join(sys.argv[1], name)))["locks"]:
        for s in lock["sections"]:     # memcached and memcached-debug compile the same files
            seen[(os.path.basename(s["file"]), s["line"])] = (lock["name"], s["status"], s.get("reason", ""))
conv = sorted(k for k, v in seen.items() if v[1] == "converted")
print("memcached-bench: %d critical sections converted: %s" % (len(conv), ", ".join(
    "%s:%d (%s)" % (k[0], k[1], seen[k][0]) for k in conv)))
for k, v in sorted(seen.items()):
    if v[1] != "converted":
        print("memcached-bench:   refused %s:%d (%s): %s" % (k[0], k[1], v[0], v[2]))
PY
say "converted build: $fallbacks translation units fell back to the original"
# A thread created inside a delegated section would share the server's core (see the check).
rcl_memcached_threads "$WORK/rcl/memcached" "$PORT" >"$OUT/threads.txt" || true
sed 's/^/memcached-bench: /' "$OUT/threads.txt"
if [ -n "${MC_SKIP_TEST:-}" ]; then
    say "make test skipped (MC_SKIP_TEST)"
else
    say "make test on the converted build (about 7 minutes on 2 cores), log: $OUT/make-test.log"
    if (cd "$WORK/rcl" && make test >"$OUT/make-test.log" 2>&1); then
        say "make test passed: $(grep -E '^Files=' "$OUT/make-test.log" | cut -d'(' -f1)$(grep -E '^Result' "$OUT/make-test.log")"
    else
        say "make test FAILED:"
        grep -E '^(t/.*(Failed|Dubious)|Failed tests|not ok|Result)' "$OUT/make-test.log" | head -20 || true
        status=1
    fi
fi
unset RCL_CC_PROFILE RCL_CC_PROFILE_LOCK RCL_CC_PROFILE_PREFIX_MAP
[ -z "${MC_SKIP_BENCH:-}" ] || exit $status

runs=${MC_RUNS:-3}
n=$(echo $THREADS | wc -w)
say "[6/6] benchmark: original, rcl, rcl-local, rcl-adaptive x -t $(echo $THREADS | tr ' ' ,) x $runs runs x ${MC_SECONDS:-10} s (~$(( n * runs * 4 * (${MC_SECONDS:-10} + 2) / 60 + 1 )) min)"
cp "$WORK/orig/memcached" "$OUT/memcached.original"
cp "$WORK/rcl/memcached" "$OUT/memcached.rcl"
$PY bench $LOAD --threads "$(echo $THREADS | tr ' ' ,)" --runs "$runs" \
    --variant "original=$OUT/memcached.original" \
    --variant "rcl=$OUT/memcached.rcl,RCL_MODE=delegate" \
    --variant "rcl-local=$OUT/memcached.rcl,RCL_MODE=local" \
    --variant "rcl-adaptive=$OUT/memcached.rcl,RCL_MODE=adaptive" \
    --csv "$OUT/bench.csv" --json "$OUT/bench.json" || status=1
$PY summary --csv "$OUT/bench.csv" --md "$OUT/summary.md"
"$BUILD/runtime/rcl-info" >"$OUT/rcl-info.txt" 2>&1 || true
say "results in $OUT (bench.csv, bench.json, summary.md)"
exit $status
