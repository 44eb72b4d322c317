#!/bin/sh
# memcached 1.6.18 (Debian source package) built with CC=rcl-cc converting every critical
# section it can (--all), then its own test suite against the converted binaries, and the
# rewrite-speed check (rcl-rewrite over all memcached .c files vs clang -fsyntax-only).
#
#   test/e2e/memcached.sh [--dry-run] [BUILD_DIR] [WORK_DIR]
#       (defaults: build, /tmp/rcl-memcached)
#
# --dry-run checks the arguments and the files the run uses, prints its steps and runs none of
# them; -h/--help prints this comment. Relative paths are read from the current folder.
#
# Enables deb-src and installs libevent-dev/perl/dpkg-dev if missing (root); about 10 minutes
# on 2 cores per mode (make test alone is ~7). Not part of the quick lit run.
# Prints: converted/refused counts by reason, make test's result in each mode, and the speed
# ratio.
# Exit status: non-zero when the build or the test suite fails, or the ratio exceeds 1.5.
# Also fails when a memcached thread is pinned to the runtime server's CPUs (created inside a
# delegated section). RCL_E2E_SKIP_TEST=1 skips make test; RCL_E2E_NESTED=refuse adds
# --no-nested-locks; RCL_E2E_PORT (21511) is the port of that affinity check.
set -eu
E2E=$(cd "$(dirname "$0")" && pwd)
. "$E2E/arguments.sh"
rcl_e2e_arguments /tmp/rcl-memcached "$@"
RCL_CC=$BUILD/rewriter/rcl-cc
REWRITE=$BUILD/rewriter/rcl-rewrite
MODES=${RCL_E2E_MODES:-adaptive delegate local}
rcl_e2e_need "$RCL_CC" "$REWRITE" "$E2E/memcached-source.sh" "$E2E/debian-source.sh" \
    "$E2E/rcl-cc-report.py"
RCL_E2E_DIR=$E2E
. "$E2E/memcached-source.sh"
rcl_e2e_dry_run "fetch memcached $RCL_MEMCACHED_VERSION (apt-get source) into $WORK" \
    "build a copy in $WORK/rcl with CC=$RCL_CC (all sections, memcached's lock wrappers)" \
    "count the converted and refused sections in $WORK/reports" \
    "check the threads' CPU affinity" \
    "make test in each of: $MODES${RCL_E2E_SKIP_TEST:+ (skipped: RCL_E2E_SKIP_TEST)}" \
    "time rcl-rewrite --all against clang -fsyntax-only over the same files"
rcl_memcached_fetch "$WORK"
cd "$WORK"
rm -rf rcl reports
cp -r memcached-1.6.18 rcl
cd rcl
# Sections that take another mutex are converted too (docs/rewriter.md, "Nested locks");
# RCL_E2E_NESTED=refuse refuses them instead.
printf 'all\n' > .rcl-cc.conf
if [ "${RCL_E2E_NESTED:-keep}" = refuse ]; then printf 'no-nested-locks\n' >> .rcl-cc.conf; fi
# memcached's own lock wrappers: item_lock(hv)/item_unlock(hv) (a lock table indexed by a hash)
# and STATS_LOCK()/STATS_UNLOCK(), defined in thread.c and called from most files (thread.c
# gets the pairs' mutex getters; docs/rewriter.md, "Wrappers"). RCL_E2E_WRAPPERS=none declares
# none (the pthread calls and the mutex_lock macro only).
if [ "${RCL_E2E_WRAPPERS:-memcached}" != none ]; then
    printf 'lock-fn=item_lock\nunlock-fn=item_unlock\nlock-fn=STATS_LOCK\nunlock-fn=STATS_UNLOCK\n' \
        >> .rcl-cc.conf
fi
./configure CC="$RCL_CC" >configure.log 2>&1
# What each file's functions do, for sections that call into other files (thread.c's
# store_item reaches items.c's lru_pull_tail, whose LOGGER_LOG reads pthread_getspecific):
# scanned over every source before the build, then read by each compile (docs/rewriter.md,
# "Functions of other files").
rm -rf "$WORK/facts"
"$REWRITE" --dry-run --quiet --facts-dir="$WORK/facts" $(ls *.c | grep -v '^testapp\|^timedrun\|^sizes') \
    -- -DHAVE_CONFIG_H -I. -DNDEBUG -std=gnu11 >/dev/null 2>&1 || true
printf 'facts-dir=%s\n' "$WORK/facts" >> .rcl-cc.conf
echo "memcached: facts of $(ls "$WORK/facts" | wc -l) files scanned"
# Sources the rewriter could not convert are still compiled; a fallback warns.
RCL_CC_REPORT="$WORK/reports" make -j"$(nproc)" >make.log 2>&1
fallbacks=$(grep -c 'rcl-cc: warning' make.log || true)
echo "memcached: built with rcl-cc ($fallbacks translation units fell back to the original)"

python3 "$E2E/rcl-cc-report.py" memcached "$WORK/reports"

status=0
# A thread created inside a delegated critical section inherits the server's CPU affinity and
# then shares its core: with the LRU maintainer there, t/restart.t's hash expansion waits
# seconds for lru_maintainer_lock (docs/results.md, "memcached, profile-guided").
rcl_memcached_threads ./memcached "${RCL_E2E_PORT:-21511}" || status=1
# Its own suite once per runtime mode (RCL_E2E_MODES, default "adaptive delegate local").
if [ -n "${RCL_E2E_SKIP_TEST:-}" ]; then
    echo "memcached: make test skipped (RCL_E2E_SKIP_TEST)"
else
    for mode in $MODES; do
        if RCL_MODE=$mode make test >"test-$mode.log" 2>&1; then
            echo "memcached: make test passed with RCL_MODE=$mode ($(grep -c '^ok' "test-$mode.log") ok lines)"
        else
            echo "memcached: make test FAILED with RCL_MODE=$mode, see $WORK/rcl/test-$mode.log"
            tail -20 "test-$mode.log"
            status=1
        fi
    done
fi

# Speed: one rcl-rewrite process over every memcached .c file against one clang
# -fsyntax-only over the same files with the same flags.
FLAGS="-DHAVE_CONFIG_H -I. -DNDEBUG -std=gnu11"
FILES=$(ls memcached-*.o | sed 's/^memcached-//; s/\.o$/.c/' | tr '\n' ' ')
t0=$(date +%s.%N)
clang-19 -fsyntax-only -w $FLAGS $FILES
t1=$(date +%s.%N)
"$REWRITE" --all --dry-run --quiet $FILES -- $FLAGS 2>/dev/null
t2=$(date +%s.%N)
python3 -c "
s, r = $t1 - $t0, $t2 - $t1
print('speed: clang -fsyntax-only %.2f s, rcl-rewrite --all %.2f s, ratio %.2f (limit 1.5)' % (s, r, r / s))
raise SystemExit(0 if r / s <= 1.5 else 1)" || status=1
exit $status
