#!/usr/bin/env bash
# Differential-testing campaign of rcl-rewrite on random programs, in the background.
#
#   scripts/fuzz-rewriter.sh [--generator csmith|legacy] start [COUNT [FIRST_SEED]]   start, or resume
#   scripts/fuzz-rewriter.sh [--generator csmith|legacy] status   progress and the summary so far
#   scripts/fuzz-rewriter.sh [--generator csmith|legacy] stop     stop it (start resumes it)
#
# The generator (default csmith) makes the programs: csmith programs with lock pairs around
# statement ranges (test/rewriter/Inputs/csmith-diff.py), or legacy C shapes csmith never
# writes (test/rewriter/Inputs/legacy-gen.py: wrappers, macros, checked and cast lock calls,
# register, K&R, literal returns after an unlock, ...; the converted program runs in
# RCL_MODE=delegate, adaptive and local; RCL_FUZZ_AVOID=known leaves out the shapes of known
# faults, see its --avoid; RCL_FUZZ_ROUND=1|2|both picks the rounds of shapes, see its --round). Both share the harness test/rewriter/Inputs/difftest.py.
# Each program is checked under `nice -n 19`, RCL_FUZZ_JOBS at a time (default 2), skipping
# originals that run longer than RCL_FUZZ_TIMEOUT seconds (default 3); RCL_FUZZ_REDUCE=0 skips
# the reduction of mismatches (a campaign full of known faults runs faster). Results go to
# $RCL_FUZZ_DIR (default build/fuzz-rewriter, build/fuzz-rewriter-legacy for the legacy
# generator): results.jsonl (one line per seed; seeds already there are skipped, so `start`
# after `stop` or a reboot resumes), log (one line per program), pid, options, and work/ with
# the files of each mismatching program and its reduced case (p<seed>.reduced.c: sections
# dropped one at a time while the mismatch persists). The first
# start copies build/rewriter/rcl-rewrite and build/runtime/librcl.a into $RCL_FUZZ_DIR/bin, so
# rebuilding during a campaign does not change what it tests; remove bin/ to test a new build.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${RCL_BUILD_DIR:-build}
GENERATOR=csmith
if [ "${1:-}" = "--generator" ]; then
    GENERATOR=${2:-}
    shift 2 || true
fi
EXTRA=()
case "$GENERATOR" in
csmith)
    DIR=${RCL_FUZZ_DIR:-$BUILD/fuzz-rewriter}
    SCRIPT=test/rewriter/Inputs/csmith-diff.py
    ;;
legacy)
    DIR=${RCL_FUZZ_DIR:-$BUILD/fuzz-rewriter-legacy}
    SCRIPT=test/rewriter/Inputs/legacy-gen.py
    [ -z "${RCL_FUZZ_AVOID:-}" ] || EXTRA+=(--avoid "$RCL_FUZZ_AVOID")
    [ -z "${RCL_FUZZ_ROUND:-}" ] || EXTRA+=(--round "$RCL_FUZZ_ROUND")
    ;;
*)
    echo "fuzz-rewriter: --generator is csmith or legacy, not '$GENERATOR'" >&2
    exit 2
    ;;
esac
[ "${RCL_FUZZ_REDUCE:-1}" = 0 ] || EXTRA+=(--reduce)
JOBS=${RCL_FUZZ_JOBS:-2}
PYTHON=/usr/bin/python3   # Debian's
TIMEOUT=${RCL_FUZZ_TIMEOUT:-3}

running() { [ -f "$DIR/pid" ] && kill -0 "$(cat "$DIR/pid")" 2>/dev/null; }

case "${1:-}" in
start)
    COUNT=${2:-5000}
    SEED=${3:-$(cat "$DIR/first-seed" 2>/dev/null || echo 100000)}
    if running; then
        echo "fuzz-rewriter: already running (pid $(cat "$DIR/pid")); stop it first" >&2
        exit 1
    fi
    [ "$GENERATOR" != csmith ] || command -v csmith >/dev/null ||
        { echo "fuzz-rewriter: csmith is not installed (scripts/setup.sh)" >&2; exit 1; }
    mkdir -p "$DIR/bin" "$DIR/work"
    if [ ! -x "$DIR/bin/rcl-rewrite" ]; then
        for f in "$BUILD/rewriter/rcl-rewrite" "$BUILD/runtime/librcl.a"; do
            [ -e "$f" ] || { echo "fuzz-rewriter: $f is missing: build first" >&2; exit 1; }
        done
        cp "$BUILD/rewriter/rcl-rewrite" "$BUILD/runtime/librcl.a" "$DIR/bin/"
        git rev-parse HEAD > "$DIR/bin/commit" 2>/dev/null || true
    fi
    echo "$SEED" > "$DIR/first-seed"
    echo "$COUNT" > "$DIR/count"
    echo "--generator $GENERATOR ${EXTRA[*]}" > "$DIR/options"
    setsid nohup nice -n 19 "$PYTHON" "$SCRIPT" --rewrite "$DIR/bin/rcl-rewrite" \
        --include runtime/include --libs "$DIR/bin/librcl.a -lhwloc -pthread" \
        --count "$COUNT" --seed "$SEED" --timeout "$TIMEOUT" --jobs "$JOBS" "${EXTRA[@]}" \
        --workdir "$DIR/work" --results "$DIR/results.jsonl" >> "$DIR/log" 2>&1 < /dev/null &
    echo $! > "$DIR/pid"
    echo "fuzz-rewriter: started pid $! (seeds $SEED..$((SEED + COUNT - 1)), rcl-rewrite of commit $(cat "$DIR/bin/commit" 2>/dev/null || echo '?')); log: $DIR/log"
    ;;
status)
    [ -f "$DIR/count" ] || { echo "fuzz-rewriter: no campaign in $DIR" >&2; exit 1; }
    done=$(wc -l < "$DIR/results.jsonl" 2>/dev/null || echo 0)
    if running; then state="running (pid $(cat "$DIR/pid"))"; else state="not running"; fi
    echo "fuzz-rewriter: $state; $done of $(cat "$DIR/count") programs from seed $(cat "$DIR/first-seed") ($(cat "$DIR/options" 2>/dev/null || echo "--generator csmith --reduce")); rcl-rewrite of commit $(cat "$DIR/bin/commit" 2>/dev/null || echo '?')"
    "$PYTHON" "$SCRIPT" --summary --results "$DIR/results.jsonl"
    ;;
stop)
    if running; then
        kill -- "-$(cat "$DIR/pid")"
        for _ in $(seq 50); do running || break; sleep 0.2; done
        echo "fuzz-rewriter: stopped; 'start' resumes"
    else
        echo "fuzz-rewriter: not running"
    fi
    ;;
*)
    sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
