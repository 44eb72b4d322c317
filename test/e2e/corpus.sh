#!/usr/bin/env bash
# The rewriter's real-code bench (issue 23, part 1): Debian bookworm C packages that lock with
# pthreads, each fetched with `apt-get source`, its build dependencies installed with
# `apt-get build-dep`, built twice -- with the plain compiler (clang-19, rcl-cc's real compiler)
# and with CC=rcl-cc converting every section it can (`all` plus the package's lock wrappers),
# through `rcl build` (two passes: other files' facts known) -- and, where it has a quick test
# suite, that suite run on the original and on the converted build in RCL_MODE=delegate,
# adaptive and local.
#
#   test/e2e/corpus.sh [options]
#     --list              the packages, in order, with their test suites and wrappers; exits
#     --only PKG[,PKG]    these packages only (names as in test/e2e/corpus/packages.txt)
#     --quick             the quick slice (the packages marked `quick`): a few minutes; implies
#                         --force, so it always measures the current rcl-cc
#     --dry-run           says what each package would run, runs nothing
#     --force             redoes packages that have a result already (default: skipped)
#     --no-test           builds only
#     --reuse-original    keeps the original build (and its times) of an earlier run that
#                         built it, where there is one: only the converted build is redone
#                         (for reruns after a change to rcl; the original does not change)
#     --summary           only rewrites the summary from the results there are
#     --build DIR         the RCL build directory (default: build; needs rewriter/rcl-cc)
#     --work DIR          state and results (default: $RCL_CORPUS_DIR or /tmp/rcl-corpus)
#     --jobs N            make -jN (default 2)
#
# Per package: test/e2e/corpus/packages.txt lists the packages (smallest first) and
# test/e2e/corpus/pkg/NAME.sh, where there is one, declares what differs from the defaults:
# the Debian source package, the lock wrappers (.rcl-cc.conf lines), the configure, build and
# test commands (see test/e2e/corpus/README.md).
#
# State: WORK/pkgs/NAME/ (source, the two builds, their logs, the rcl-cc reports, the suites'
# logs), WORK/results/NAME.json (one per package; a package with a result is skipped unless
# forced), WORK/summary.json and WORK/summary.md (the per-package table, the totals, the
# refusal reasons ranked over the corpus, the build time ratio, every fault found).
#
# Runs every build under nice -n 19 (the bench shares its machine). Needs root for apt-get
# (deb-src is enabled as test/e2e/debian-source.sh does). When the Debian archive cannot be
# reached it says so and exits 0 (nothing to measure; RCL_CORPUS_ARCHIVE=URL names the mirror
# checked instead of the first of the apt sources). Exit status: 1 when a package of this
# run has a fault (a file compiled unchanged, a rewriter or rcl-cc crash, a converted build or
# suite that fails where the original passes), 2 for a usage error, 0 otherwise.
# The whole script is one brace group, read before it runs: editing the file (a package's
# commands live elsewhere, but still) does not change a run in progress.
{
set -uo pipefail
E2E=$(cd "$(dirname "$0")" && pwd)
CORPUS=$E2E/corpus
BUILD=build
WORK=${RCL_CORPUS_DIR:-/tmp/rcl-corpus}
JOBS=2
ONLY="" QUICK=0 DRY=0 LIST=0 FORCE=0 NOTEST=0 SUMMARY_ONLY=0 REUSE_ORIG=0

usage() { sed -n '2,/^# The whole script/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
        --list) LIST=1 ;;
        --only) ONLY=${2:?}; shift ;;
        --only=*) ONLY=${1#*=} ;;
        --quick) QUICK=1; FORCE=1 ;;
        --dry-run) DRY=1 ;;
        --force) FORCE=1 ;;
        --no-test) NOTEST=1 ;;
        --reuse-original) REUSE_ORIG=1 ;;
        --summary) SUMMARY_ONLY=1 ;;
        --build) BUILD=${2:?}; shift ;;
        --work) WORK=${2:?}; shift ;;
        --jobs) JOBS=${2:?}; shift ;;
        -h|--help) usage ;;
        *) echo "corpus: unknown option $1" >&2; usage ;;
    esac
    shift
done

# The work folder by an absolute path: each package's steps run in its own folders.
case $WORK in /*) ;; *) WORK=$PWD/$WORK ;; esac

# The packages: `NAME [quick]` lines of packages.txt, in order.
mapfile -t ALL < <(sed 's/#.*//' "$CORPUS/packages.txt" | awk 'NF { print $1 }')
mapfile -t QUICKS < <(sed 's/#.*//' "$CORPUS/packages.txt" | awk '$2 == "quick" { print $1 }')
if [ -n "$ONLY" ]; then
    IFS=, read -r -a SELECTED <<<"$ONLY"
    for p in "${SELECTED[@]}"; do
        printf '%s\n' "${ALL[@]}" | grep -qx "$p" || { echo "corpus: no package $p in packages.txt" >&2; exit 2; }
    done
elif [ $QUICK = 1 ]; then
    SELECTED=("${QUICKS[@]}")
else
    SELECTED=("${ALL[@]}")
fi
N=${#SELECTED[@]}

# pkg_load NAME: the package's settings (defaults, then its file), in the current shell.
pkg_load() {
    SOURCE=$1 VERSION="" RCL_CONF="" CONFIGURE="" BUILD_CMD="" TEST_CMD="" TEST_TIMEOUT=300
    FAILED_CMD="" SUBDIR="" NOTE=""
    # shellcheck disable=SC1090
    [ ! -f "$CORPUS/pkg/$1.sh" ] || . "$CORPUS/pkg/$1.sh"
}

if [ $LIST = 1 ]; then
    i=0
    for p in "${SELECTED[@]}"; do
        i=$((i + 1))
        (pkg_load "$p"
         q=""; printf '%s\n' "${QUICKS[@]}" | grep -qx "$p" && q=" [quick]"
         w=$(printf '%b' "$RCL_CONF" | tr '\n' ' ')
         printf '%2d %-16s source %-14s%s suite: %s; .rcl-cc.conf: all %s\n' "$i" "$p" "$SOURCE" "$q" \
             "${TEST_CMD:-none}" "${w:-}")
    done
    exit 0
fi

SUMMARY="python3 $CORPUS/summary.py"
if [ $SUMMARY_ONLY = 1 ]; then
    $SUMMARY summary "$WORK"
    exit $?
fi

RCL_CC=$(cd "$BUILD" 2>/dev/null && pwd)/rewriter/rcl-cc
RCL=$(cd "$BUILD" 2>/dev/null && pwd)/cli/rcl
PROF_LIB=$(cd "$BUILD" 2>/dev/null && pwd)/profiler/librcl-prof.so
REAL_CC=${RCL_CC_REAL_CC:-clang-19}
if [ $DRY = 0 ] && { [ ! -x "$RCL_CC" ] || [ ! -x "$RCL" ]; }; then
    echo "corpus: $RCL_CC or $RCL not found (scripts/setup.sh builds them)" >&2
    exit 2
fi

# The archive: deb-src entries and a reachable mirror, checked once.
archive_reachable() {
    local uri
    uri=$(awk '/^URIs:/ { print $2; exit } /^deb(-src)? / { print $2; exit }' \
        /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -1)
    uri=${RCL_CORPUS_ARCHIVE:-${uri:-http://deb.debian.org/debian}}
    python3 - "$uri" <<'PY'
import sys, urllib.request
try:
    urllib.request.urlopen(urllib.request.Request(
        sys.argv[1].rstrip("/") + "/dists/bookworm/InRelease", method="HEAD"), timeout=15)
except Exception as e:
    print("corpus: %s: %s" % (sys.argv[1], e), file=sys.stderr)
    sys.exit(1)
PY
}

if [ $DRY = 0 ]; then
    if ! archive_reachable; then
        echo "corpus: the Debian package archive is unreachable: skipped (nothing built, nothing measured)"
        exit 0
    fi
    [ "$(id -u)" -eq 0 ] || { echo "corpus: apt-get source/build-dep need root" >&2; exit 2; }
    renice -n 19 -p $$ >/dev/null 2>&1 || true
    mkdir -p "$WORK/pkgs" "$WORK/results"
    # The versions come from apt-cache showsrc, which knows nothing before deb-src is enabled
    # (a fresh machine: every package was "no source package" and the quick slice failed).
    # shellcheck disable=SC1091
    . "$E2E/debian-source.sh"
    rcl_debian_src_enable
fi

# The configure/build commands when the package's file gives none, from its source tree.
default_configure() {
    if [ -x configure ]; then echo './configure CC="$CC"'
    elif [ -f configure.ac ] || [ -f configure.in ]; then echo 'autoreconf -fi && ./configure CC="$CC"'
    elif [ -f CMakeLists.txt ]; then
        echo 'cmake -S . -B _build -G Ninja -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=None'
    elif [ -f meson.build ]; then echo 'CC="$CC" meson setup _build -Dbuildtype=plain'
    else echo ':'
    fi
}
default_build() {
    if [ -f CMakeLists.txt ] && [ ! -x configure ] || [ -f meson.build ] && [ ! -f Makefile.am ]; then
        echo 'ninja -C _build -j"$JOBS"'
    else
        echo 'make -j"$JOBS" CC="$CC"'
    fi
}
# Test names that failed, from a suite's log: automake, TAP, ctest, meson.
default_failed() {
    sed -n 's/^\(FAIL\|ERROR\|XPASS\): *\([^ ]*\).*/\2/p; s/^not ok [0-9]* *-\{0,1\} *//p;
            s/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .*\*\*\*.*/\1/p;
            s/^ *[0-9]*\/[0-9]* \([^ ]*\) *\(FAIL\|TIMEOUT\|ERROR\) .*/\1/p' "$1" | sort -u
}

now() { date +%s.%N; }
elapsed() { python3 -c "print('%.1f' % ($2 - $1))"; }

# run_package I NAME: one package, start to result, in a subshell of its own.
run_package() (
    i=$1 NAME=$2
    say() { echo "[$i/$N] $NAME: $*"; }
    pkg_load "$NAME"
    D=$WORK/pkgs/$NAME
    if [ $DRY = 1 ]; then
        say "would fetch source package $SOURCE${VERSION:+=$VERSION}, apt-get build-dep it, build it with $REAL_CC and with rcl build + rcl-cc (.rcl-cc.conf: all$(printf '%b' "${RCL_CONF:+\n$RCL_CONF}" | tr '\n' ' '))"
        say "  configure: ${CONFIGURE:-auto (./configure, cmake or meson)}"
        say "  build:     ${BUILD_CMD:-auto (make -j$JOBS or ninja)}"
        say "  suite:     ${TEST_CMD:-none} (original, then RCL_MODE=delegate, adaptive, local)"
        [ ! -f "$WORK/results/$NAME.json" ] || [ $FORCE = 1 ] || say "  (has a result: would be skipped)"
        return 0
    fi
    if [ -f "$WORK/results/$NAME.json" ] && [ $FORCE = 0 ]; then
        say "done earlier (results/$NAME.json), skipped (--force redoes it)"
        return 0
    fi
    mkdir -p "$D"
    facts=$D/facts.env
    # --reuse-original: an earlier run's original build, kept with its facts (times, status).
    local kept_orig=""
    if [ $REUSE_ORIG = 1 ] && [ -d "$D/orig" ] && grep -qx 'orig_status=0' "$facts" 2>/dev/null; then
        kept_orig=$(grep '^orig_' "$facts")
    fi
    : >"$facts"
    fact() { printf '%s=%s\n' "$1" "$2" >>"$facts"; }
    fact name "$NAME"
    fact source "$SOURCE"

    # Fetch (once): the newest version the archive lists, or the next one where the mirror does
    # not serve its files (a security update listed before its files are there: libzstd's
    # 1.5.4+dfsg2-5+deb12u1 answered 404).
    local versions=$VERSION
    if [ -z "$VERSION" ]; then
        versions=$(apt-cache showsrc --only-source "$SOURCE" 2>/dev/null |
            awk '/^Version:/ { print $2 }' | sort -Vr | uniq)
        VERSION=$(printf '%s\n' "$versions" | head -1)
    fi
    if [ -z "$VERSION" ]; then
        say "no source package $SOURCE in the archive"
        fact fault "no source package $SOURCE"
        $SUMMARY package "$D" "$WORK/results/$NAME.json"
        return 1
    fi
    local subdir_given=${SUBDIR:-} fetched=""
    for VERSION in $versions; do
        upstream=${VERSION#*:}
        upstream=${upstream%-*}
        SUBDIR=${subdir_given:-$SOURCE-$upstream}
        if [ -d "$D/src/$SUBDIR" ]; then fetched=1; break; fi
        say "fetching $SOURCE $VERSION (apt-get source)"
        if rcl_debian_source "$D/src" "$SOURCE" "$VERSION" "$SUBDIR"; then fetched=1; break; fi
        say "apt-get source $SOURCE=$VERSION failed"
    done
    fact version "$VERSION"
    if [ -z "$fetched" ]; then
        fact fault "apt-get source failed"
        $SUMMARY package "$D" "$WORK/results/$NAME.json"
        return 1
    fi
    if [ ! -f "$D/build-dep.done" ]; then
        say "installing build dependencies (apt-get build-dep)"
        if DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 \
            -o APT::Install-Recommends=0 build-dep -y -q "$SOURCE" >"$D/build-dep.log" 2>&1; then
            touch "$D/build-dep.done"
        else
            say "apt-get build-dep failed (see $D/build-dep.log); building anyway"
        fi
    fi
    cd "$D/src/$SUBDIR" || return 1
    [ -n "$CONFIGURE" ] || CONFIGURE=$(default_configure)
    [ -n "$BUILD_CMD" ] || BUILD_CMD=$(default_build)
    fact configure "$CONFIGURE"
    fact build_cmd "$BUILD_CMD"
    fact test_cmd "$TEST_CMD"
    fact rcl_conf "$(printf '%b' "all${RCL_CONF:+\n$RCL_CONF}" | tr '\n' ';')"

    # build TREE CC: a fresh copy of the source, configured and built with CC; timed.
    build() {
        local tree=$1 t0 t1 t2 st
        rm -rf "${D:?}/$tree" "$D/reports"
        cp -a "$D/src/$SUBDIR" "$D/$tree"
        [ "$tree" != rcl ] || printf '%b\n' "all${RCL_CONF:+\n$RCL_CONF}" >"$D/rcl/.rcl-cc.conf"
        cd "$D/$tree" || return 1
        t0=$(now)
        (export CC=$2 JOBS
         # Debian's patches that touch configure.ac or a Makefile.am leave the generated files
         # older: make would rerun automake (another version) and fail. Regenerate them first
         # (unless the package's CONFIGURE runs autoconf, autoreconf or autogen.sh itself).
         if [ -x configure ] && [ -f configure.ac ] && [ "$CONFIGURE" = "${CONFIGURE#*auto}" ] &&
             [ -n "$(find . \( -name configure.ac -o -name Makefile.am -o -name '*.m4' \) -newer configure -print -quit)" ]; then
             echo "corpus: autotools inputs newer than configure: autoreconf -fi"
             autoreconf -fi || echo "corpus: autoreconf failed: configuring as shipped"
         fi
         eval "$CONFIGURE") >"$D/$tree-configure.log" 2>&1
        st=$?
        t1=$(now)
        # The build's CPU time (user + system of every process it ran, bash's `times`) next to
        # its wall time: on a shared machine the wall time of one build depends on the others.
        if [ $st = 0 ] && [ "$tree" = rcl ]; then
            # As a user converts a whole project: `rcl build`, which records every file's facts
            # in a first pass and compiles again the files whose sections waited for them.
            rm -rf "$D/facts"
            (export CC=$2 JOBS
             "$RCL" build --facts-dir "$D/facts" --json "$D/rcl-build.json" -- \
                 bash -c "$BUILD_CMD"
             st=$?; times >"$D/$tree-build.times"; exit $st) >"$D/$tree-build.log" 2>&1
            st=$?
        elif [ $st = 0 ]; then
            (export CC=$2 JOBS; eval "$BUILD_CMD"
             st=$?; times >"$D/$tree-build.times"; exit $st) >"$D/$tree-build.log" 2>&1
            st=$?
        fi
        t2=$(now)
        fact "${tree}_status" $st
        fact "${tree}_configure_s" "$(elapsed "$t0" "$t1")"
        fact "${tree}_build_s" "$(elapsed "$t1" "$t2")"
        # `times`' second line: the children's user and system time, as 1m2.345s 0m0.678s.
        [ ! -s "$D/$tree-build.times" ] ||
            fact "${tree}_build_cpu_s" "$(sed -n 2p "$D/$tree-build.times" |
                awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } printf "%.1f", s }')"
        return $st
    }
    if [ -n "$kept_orig" ]; then
        say "the original: built by an earlier run, kept (--reuse-original)"
        printf '%s\n' "$kept_orig" >>"$facts"
        orig_ok=1
    else
        say "building the original with $REAL_CC ..."
        if build orig "$REAL_CC"; then orig_ok=1; else orig_ok=0; say "the original did not build (see $D/orig-*.log)"; fi
    fi
    # The quick slice is a test (check.sh): a package it cannot measure fails it, or the slice
    # would pass having compared nothing.
    quick_fail=0
    if [ $QUICK = 1 ] && [ $orig_ok = 0 ]; then
        say "FAILED: the quick slice cannot measure a package whose original does not build"
        quick_fail=1
    fi
    say "building with rcl-cc ..."
    export RCL_CC_REPORT=$D/reports
    if build rcl "$RCL_CC"; then rcl_ok=1; else rcl_ok=0; say "the converted build FAILED (see $D/rcl-*.log)"; fi
    unset RCL_CC_REPORT
    say "$(python3 "$E2E/rcl-cc-report.py" "$NAME" "$D/reports" 2>/dev/null | head -1 | sed "s/^$NAME: //"); $(ls "$D/reports" 2>/dev/null | wc -l) translation units; $(grep -c '^rcl-cc: warning: ' "$D/rcl-build.log" 2>/dev/null) compiled unchanged"

    # The suites: the original once, the converted build in each mode.
    if [ -n "$TEST_CMD" ] && [ $NOTEST = 0 ] && [ $orig_ok = 1 ] && [ $rcl_ok = 1 ]; then
        for run in orig delegate adaptive local; do
            tree=rcl
            [ $run != orig ] || tree=orig
            say "test suite: $( [ $run = orig ] && echo original || echo "converted, RCL_MODE=$run") ..."
            cd "$D/$tree" || return 1
            t0=$(now)
            # The converted suite's own programs (APR's and libgpg-error's tests are built by
            # `make check`) read the facts the build recorded: a test calling the library's
            # wrappers converts as the library's own files do, as under `rcl build`.
            (export CC JOBS; [ $run = orig ] || export RCL_MODE=$run RCL_CC_FACTS_DIR=$D/facts
             [ $tree = orig ] && CC=$REAL_CC || CC=$RCL_CC
             timeout -k 10 "$TEST_TIMEOUT" bash -c "$TEST_CMD") >"$D/test-$run.log" 2>&1
            st=$?
            fact "test_${run}_status" $st
            fact "test_${run}_s" "$(elapsed "$t0" "$(now)")"
            if [ -n "$FAILED_CMD" ]; then
                (eval "$FAILED_CMD" "$D/test-$run.log") >"$D/test-$run.failed" 2>/dev/null
            else
                default_failed "$D/test-$run.log" >"$D/test-$run.failed"
            fi
        done
        # Weighted coverage (issue 30, item 12): the delegate-mode suite once more under
        # rcl-prof's preload, which counts every acquisition of the suite's processes, a
        # delegated section (librcl's hooks) apart from a pthread_mutex_lock left in place.
        # A run of its own: the judged suites above run without the profiler.
        if [ -f "$PROF_LIB" ]; then
            say "test suite: converted, RCL_MODE=delegate, counting acquisitions (rcl-prof) ..."
            rm -rf "$D/prof"; mkdir -p "$D/prof"
            cd "$D/rcl" || return 1
            t0=$(now)
            (export CC=$RCL_CC JOBS RCL_MODE=delegate RCL_PROF_RAW_DIR=$D/prof RCL_PROF_COUNTERS=0
             export RCL_CC_FACTS_DIR=$D/facts
             export RCL_PROF_PARENT=1 LD_PRELOAD=$PROF_LIB${LD_PRELOAD:+:$LD_PRELOAD}
             timeout -k 10 "$TEST_TIMEOUT" bash -c "$TEST_CMD") >"$D/test-prof.log" 2>&1
            fact test_prof_status $?
            fact test_prof_s "$(elapsed "$t0" "$(now)")"
        fi
    fi
    $SUMMARY package "$D" "$WORK/results/$NAME.json" | sed "s/^/[$i\/$N] $NAME: /"
    st=${PIPESTATUS[0]}
    [ $quick_fail = 0 ] || st=1
    return "$st"
)

[ $DRY = 0 ] || echo "corpus: work folder $WORK, build $(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD (missing)")"
status=0
t_start=$(now)
i=0
for p in "${SELECTED[@]}"; do
    i=$((i + 1))
    run_package $i "$p" || status=1
done
if [ $DRY = 0 ]; then
    $SUMMARY summary "$WORK" | tail -n +1
    echo "corpus: $N package(s) in $(elapsed "$t_start" "$(now)") s; summary in $WORK/summary.md and $WORK/summary.json"
fi
exit $status
}
