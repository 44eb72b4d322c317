#!/usr/bin/env bash
# Install every dependency from Debian packages (idempotent), then configure and build the
# project in build/. Usage: scripts/setup.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(clang-19 libclang-19-dev llvm-19-dev llvm-19-tools libclang-rt-19-dev clang-format-19
          libhwloc-dev hwloc libck-dev ninja-build cmake pkg-config python3 python3-psutil
          csmith libcsmith-dev libevent-dev python3-matplotlib
          clang-tools-19)   # clang-apply-replacements-19 (rewriter/export-fixes-apply.test)
PACKAGES+=(libmemcached-tools dpkg-dev)   # bench/apps/memcached.sh: memaslap; apt-get source;
                                          # dpkg-shlibdeps (the package: cpack -G DEB)
PACKAGES+=(make util-linux)   # test/e2e/xz-utils.sh (configure; make check), libuv.sh (setpriv)
PACKAGES+=(groff-base man-db)   # test/man (groff, man), scripts/package-test.sh (man)
PACKAGES+=(gcc ccache gdb)   # rcl-cc's compatibility suite (test/rewriter/compat-*.test: GCC as
                             # the real compiler, gcov, ccache), rcl-cc-debugger.test (gdb)
PACKAGES+=(meson)   # test/cli/build-meson.test (rcl build on a Meson project)
PACKAGES+=(procps)   # test/bench/neighbours.test (pgrep: no benchmark process left behind)

missing=()
for p in "${PACKAGES[@]}"; do
    # (Installed, or installed with its triggers still to run: another apt-get at work, such as
    # the corpus's build-dep, leaves man-db so for a while.)
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
        grep -Eq "install ok (installed|triggers-pending|triggers-awaited)" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

BUILD=${RCL_BUILD_DIR:-build}
cmake -G Ninja -S . -B "$BUILD" -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DRCL_WERROR=ON "$@" >/dev/null
ninja -C "$BUILD"
echo "setup: built in $BUILD/"
