#!/bin/sh
# xz-utils 5.4.1 (Debian source package 5.4.1-1+deb12u2) built with CC=rcl-cc by `rcl build`
# (two passes, so that sections calling into other files convert once their facts are known),
# converting every critical section it can (`all`), with its lock wrappers declared
# (mythread_mutex_lock / mythread_mutex_unlock of src/common/mythread.h; its synchronized
# blocks, mythread_sync, are sections of their own), then its own test suite (`make check`) and
# a multithreaded round trip in each RCL_MODE: delegate, local, adaptive.
#
#   test/e2e/xz-utils.sh [--dry-run] [BUILD_DIR] [WORK_DIR]
#       (defaults: build, /tmp/rcl-xz-utils)
#
# --dry-run checks the arguments and the files the run uses, prints its steps and runs none of
# them; -h/--help prints this comment. Relative paths are read from the current folder.
#
# Enables deb-src if needed (root). About 6 minutes on 2 cores (the build is 3). Not part of
# the quick lit run.
#
# `make check` runs xz with --threads=1 only, which never enters liblzma's multithreaded
# encoder and decoder (stream_encoder_mt.c, stream_decoder_mt.c: every lock of liblzma). The
# round trip does: it compresses a tar of the xz source tree with `xz -T4 --block-size=64KiB`
# (many blocks, four worker threads), decompresses it with `xz -d -T4` (the threaded decoder)
# and with the single-threaded `xzdec`, and compares with cmp.
#
# Prints the converted/refused counts by reason (test/e2e/rcl-cc-report.py) and one result
# line per mode. Exit status: non-zero when the build, a `make check` or a round trip fails.
set -eu
E2E=$(cd "$(dirname "$0")" && pwd)
. "$E2E/arguments.sh"
rcl_e2e_arguments /tmp/rcl-xz-utils "$@"
RCL_CC=$BUILD/rewriter/rcl-cc
VERSION=5.4.1
rcl_e2e_need "$RCL_CC" "$BUILD/rewriter/rcl-rewrite" "$BUILD/cli/rcl" "$E2E/debian-source.sh" \
    "$E2E/rcl-cc-report.py"
. "$E2E/debian-source.sh"
rcl_e2e_dry_run "fetch xz-utils $VERSION (apt-get source) into $WORK" \
    "build a copy in $WORK/rcl with rcl build, CC=$RCL_CC (all sections, xz's lock wrappers)" \
    "count the converted and refused sections in $WORK/reports" \
    "make check and an xz -T4 round trip in each of: delegate local adaptive"
rcl_debian_source "$WORK" xz-utils "$VERSION-1+deb12u2" "xz-utils-$VERSION"
cd "$WORK"
rm -rf rcl reports facts
cp -r "xz-utils-$VERSION" rcl
cd rcl
printf 'all\nlock-fn=mythread_mutex_lock\nunlock-fn=mythread_mutex_unlock\n' > .rcl-cc.conf
./configure CC="$RCL_CC" --disable-nls --disable-doc >configure.log 2>&1
# rcl build: the sections that call into liblzma's other files (lzma_outq_*) wait for those
# files' facts in the first pass and convert in the second.
RCL_CC_REPORT="$WORK/reports" "$BUILD/cli/rcl" build --facts-dir "$WORK/facts" -- \
    make -j"$(nproc)" >make.log 2>&1
fallbacks=$(grep -c 'rcl-cc: warning' make.log || true)
echo "xz-utils: built with rcl-cc ($fallbacks translation units fell back to the original)"
python3 "$E2E/rcl-cc-report.py" xz-utils "$WORK/reports" --files

tar -cf "$WORK/corpus.tar" -C "$WORK" "xz-utils-$VERSION"
status=0
for mode in delegate local adaptive; do
    if RCL_MODE=$mode make check >"check-$mode.log" 2>&1; then
        check="make check passed ($(grep -c '^PASS' "check-$mode.log") PASS lines)"
    else
        check="make check FAILED (see $WORK/rcl/check-$mode.log)"
        status=1
    fi
    if RCL_MODE=$mode src/xz/xz -T4 --block-size=64KiB -6 -c "$WORK/corpus.tar" >"$WORK/corpus.tar.xz" &&
        RCL_MODE=$mode src/xz/xz -d -T4 -c "$WORK/corpus.tar.xz" | cmp - "$WORK/corpus.tar" &&
        RCL_MODE=$mode src/xzdec/xzdec "$WORK/corpus.tar.xz" | cmp - "$WORK/corpus.tar"; then
        trip="round trip -T4 ok ($(wc -c <"$WORK/corpus.tar") bytes, $(src/xz/xz -lv "$WORK/corpus.tar.xz" | awk '/Blocks:/ { print $2; exit }') blocks)"
    else
        trip="round trip -T4 FAILED"
        status=1
    fi
    echo "xz-utils RCL_MODE=$mode: $check; $trip"
done
exit $status
