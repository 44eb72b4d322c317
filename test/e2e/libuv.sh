#!/bin/sh
# libuv 1.44.2 (Debian source package libuv1 1.44.2-1+deb12u1) built with CMake and
# CC=rcl-cc converting every critical section it can (`all`), with its lock wrappers declared
# (uv_mutex_lock / uv_mutex_unlock, src/unix/thread.c), then its own test suite (ctest: the
# runner against the shared and the static library, as Debian's build runs it) in each
# RCL_MODE: delegate, local, adaptive.
#
#   test/e2e/libuv.sh [--dry-run] [BUILD_DIR] [WORK_DIR]
#       (defaults: build, /tmp/rcl-libuv)
#
# --dry-run checks the arguments and the files the run uses, prints its steps and runs none of
# them; -h/--help prints this comment. Relative paths are read from the current folder.
#
# Enables deb-src if needed (root). About 15 minutes on 2 cores: the converted build (~6), the
# original build (~2), four test runs (~80 s each). Not part of the quick lit run.
#
# The original is built too (clang-19, same flags) and its suite run once: a test that fails
# there fails because of this machine (tcp_connect_timeout and tcp_close_while_connecting
# expect a connect to an unroutable address to hang; without a network it fails at once), not
# because of the conversion. A mode fails when a test fails in it that passes in the original;
# such a test is run once more alone and reported either way. libuv's runner refuses to run as
# root: the suites run as nobody (setpriv) on a tree owned by nobody. The environment is
# debian/rules': UV_TEST_TIMEOUT_MULTIPLIER=2, RES_OPTIONS=attempts:0.
#
# Prints the converted/refused counts by reason (test/e2e/rcl-cc-report.py, per file: src/ is
# the library, test/ the test programs, which have critical sections of their own), the
# process-title check below and one suite result line per mode. Exit status: non-zero when a
# build fails, a mode fails a test that the original passes, or the title check differs.
set -eu
E2E=$(cd "$(dirname "$0")" && pwd)
. "$E2E/arguments.sh"
rcl_e2e_arguments /tmp/rcl-libuv "$@"
RCL_CC=$BUILD/rewriter/rcl-cc
VERSION=1.44.2
rcl_e2e_need "$RCL_CC" "$BUILD/rewriter/rcl-rewrite" "$E2E/debian-source.sh" \
    "$E2E/rcl-cc-report.py"
. "$E2E/debian-source.sh"
rcl_e2e_dry_run "fetch libuv $VERSION (apt-get source) into $WORK" \
    "build a copy in $WORK/rcl with CC=$RCL_CC (all sections, libuv's lock wrappers)" \
    "count the converted and refused sections in $WORK/reports" \
    "build the original in $WORK/orig with clang-19 and run its suite" \
    "the process-title check, then the suite in each of: delegate local adaptive"
rcl_debian_source "$WORK" libuv1 "$VERSION-1+deb12u1" "libuv1-$VERSION"
cd "$WORK"
rm -rf rcl orig reports

# build DIR CC [REPORT_DIR]: configure and build a copy of the source in DIR, with the tests
# (the .rcl-cc.conf of the converted copy is in DIR, above the build directory).
build() {
    cp -r "libuv1-$VERSION" "$1"
    [ -z "${3:-}" ] || printf 'all\nlock-fn=uv_mutex_lock\nunlock-fn=uv_mutex_unlock\n' >"$1/.rcl-cc.conf"
    mkdir "$1/build"
    (cd "$1/build" &&
        CFLAGS="-g -O2" cmake -G Ninja .. -DCMAKE_C_COMPILER="$2" -DLIBUV_BUILD_TESTS=ON \
            -DCMAKE_BUILD_TYPE=None -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >../configure.log 2>&1)
    if [ -n "${3:-}" ]; then
        # What each file's functions do, for sections calling into other files
        # (uv_set_process_title -> uv__set_process_title's prctl in linux-core.c): every
        # source scanned first, then read by each compile (docs/rewriter.md, "Functions of
        # other files").
        rm -rf "$WORK/facts"
        python3 -c 'import json,sys; print("\n".join(sorted({c["file"] for c in json.load(open(sys.argv[1])) if c["file"].endswith(".c")})))' \
            "$1/build/compile_commands.json" >"$WORK/sources.txt"
        # shellcheck disable=SC2046
        "$BUILD/rewriter/rcl-rewrite" --dry-run --quiet --facts-dir="$WORK/facts" -p "$1/build" \
            $(cat "$WORK/sources.txt") >/dev/null 2>&1 || true
        printf 'facts-dir=%s\n' "$WORK/facts" >>"$1/.rcl-cc.conf"
        echo "libuv: facts of $(ls "$WORK/facts" | wc -l) files scanned"
    fi
    (cd "$1/build" && env ${3:+RCL_CC_REPORT=$3} ninja -j"$(nproc)" >../make.log 2>&1)
}
build rcl "$RCL_CC" "$WORK/reports"
fallbacks=$(grep -c 'rcl-cc: warning' rcl/make.log || true)
echo "libuv: built with rcl-cc ($fallbacks translation units fell back to the original)"
python3 "$E2E/rcl-cc-report.py" libuv "$WORK/reports" --files
build orig clang-19
echo "libuv: original built with clang-19"

AS_USER=""
if [ "$(id -u)" -eq 0 ]; then
    chown -R nobody: rcl orig
    AS_USER="setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=$WORK"
fi
# suite DIR LOG [MODE]: ctest in DIR/build; the names of the failed tests in LOG.failed.
suite() {
    (cd "$1/build" && $AS_USER env ${3:+RCL_MODE=$3} UV_TEST_TIMEOUT_MULTIPLIER=2 \
        RES_OPTIONS=attempts:0 ctest --output-on-failure >"$2" 2>&1) || true
    sed -n 's/^not ok [0-9]* - //p' "$2" | sort -u >"$2.failed"
}
suite orig "$WORK/test-orig.log"
echo "libuv original: $(grep -c '^ok' "$WORK/test-orig.log") ok lines; failed here: $(tr '\n' ' ' <"$WORK/test-orig.log.failed")"
# uv_set_process_title renames the calling thread (prctl(PR_SET_NAME) in
# uv__set_process_title, linux-core.c) inside its process_title_mutex section (proctitle.c).
# The rewriter checks the callees of the section's own file only, so that section converts and
# a delegated run renames the server thread instead (docs/rewriter.md, "libuv"). This check
# compares the calling thread's name after the call with the original's.
cat >title.c <<'EOF_C'
#include <stdio.h>
#include <string.h>
#include <uv.h>
int main(int argc, char **argv)
{
    char name[64] = "", title[64] = "";
    FILE *f;
    argv = uv_setup_args(argc, argv);
    if (uv_set_process_title("rcl-title") != 0) return 2;
    if (!(f = fopen("/proc/thread-self/comm", "r")) || !fgets(name, sizeof name, f)) return 3;
    name[strcspn(name, "\n")] = 0;
    uv_get_process_title(title, sizeof title);
    printf("calling thread's name '%s', process title '%s'\n", name, title);
    return 0;
}
EOF_C
for d in orig rcl; do
    clang-19 -I"$d/include" title.c -o "$d/build/title" -L"$d/build" -luv -Wl,-rpath,"$WORK/$d/build"
done
TITLE_ARG=an-argument-long-enough-for-the-title
want=$(orig/build/title $TITLE_ARG)

status=0
for mode in delegate local adaptive; do
    got=$(RCL_MODE=$mode rcl/build/title $TITLE_ARG)
    if [ "$got" = "$want" ]; then
        echo "libuv RCL_MODE=$mode: uv_set_process_title as in the original: $got"
    else
        echo "libuv RCL_MODE=$mode: uv_set_process_title DIFFERS: $got; original: $want"
        status=1
    fi
done
for mode in delegate local adaptive; do
    log=$WORK/test-$mode.log
    suite rcl "$log" "$mode"
    new=$(comm -23 "$log.failed" "$WORK/test-orig.log.failed" | tr '\n' ' ')
    line="$(grep -c '^ok' "$log") ok lines, $(wc -l <"$log.failed") failed"
    if [ -n "$new" ]; then
        status=1
        for t in $new; do
            if (cd rcl && $AS_USER env RCL_MODE=$mode UV_TEST_TIMEOUT_MULTIPLIER=2 \
                RES_OPTIONS=attempts:0 build/uv_run_tests "$t" >/dev/null 2>&1); then
                line="$line; $t FAILED (passes in the original; passed alone on a rerun)"
            else
                line="$line; $t FAILED (passes in the original; failed again alone)"
            fi
        done
    else
        line="$line, all of them failed in the original too: passed"
    fi
    echo "libuv RCL_MODE=$mode: $line (see $log)"
done
exit $status
