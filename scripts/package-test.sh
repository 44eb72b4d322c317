#!/usr/bin/env bash
# Build the Debian package, install it on this machine, use it as a user would, remove it.
#   scripts/package-test.sh [BUILD_DIR]      (default build/; needs root or sudo, and apt-get)
#
# 1. `cmake --build BUILD_DIR --target package` writes rcl_<version>_<arch>.deb (CPack, the
#    root CMakeLists.txt);
# 2. `apt-get install ./rcl_*.deb` (its Depends come from the archive when missing);
# 3. outside the source tree, with PATH=/usr/bin:/bin and nothing of the build tree: a program
#    that calls rcl_delegate built with `pkg-config --cflags --libs rcl`, one built with
#    find_package(rcl CONFIG), one whose mutex critical sections `make CC=rcl-cc` converts, a
#    mixed C/C++ one linked by rcl-c++, each run in the default mode and with
#    RCL_MODE=delegate; rcl-prof profiles one, rcl-info and rcl answer, `man` shows every page;
#    rcl-cc's commands name only installed files;
# 4. `apt-get remove rcl`: every file of the package is gone; `apt-get purge rcl`: dpkg no
#    longer knows it.
# The machine is left as found: an rcl package already installed makes it refuse (exit 2)
# before touching anything, and the packages its install pulled in are purged again, on failure
# too. Exit status 0 when everything held, 1 otherwise; the failing step is named.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=$(cd "${1:-build}" && pwd)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

say() { echo "package-test: $*"; }
fail() { say "FAILED: $*"; exit 1; }

if dpkg-query -W -f='${db:Status-Abbrev}' rcl 2>/dev/null | grep '^.[^n]' >/dev/null; then
    say "an rcl package is already installed ($(dpkg-query -W -f='${Version} ${Status}' rcl));"
    say "refusing to replace or remove it: run this on a machine without it"
    exit 2
fi

say "building the package in $BUILD"
cmake --build "$BUILD" --target package >"$BUILD/package-test.log" 2>&1 ||
    { tail -20 "$BUILD/package-test.log"; fail "cmake --build $BUILD --target package"; }
VERSION=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$BUILD/CMakeCache.txt")
DEB="$BUILD/rcl_${VERSION}_$(dpkg --print-architecture).deb"
[ -f "$DEB" ] || fail "no $DEB after the build"
dpkg-deb -f "$DEB" Depends

WORK=$(mktemp -d /tmp/rcl-package-test.XXXXXX)
installed_packages() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}:${Architecture}\n' |
    awk '$1 == "ii" { print $2 }' | sort; }
installed_packages >"$WORK/before.txt"
installed=0
cleanup() {
    local rc=$?
    if [ "$installed" = 1 ] && dpkg-query -W rcl >/dev/null 2>&1; then
        say "cleaning up: purging rcl"
        $SUDO apt-get purge -y -q rcl >/dev/null 2>&1 || true
    fi
    # What the install pulled in (the package's Depends missing before) goes again.
    installed_packages >"$WORK/after.txt"
    mapfile -t added < <(comm -13 "$WORK/before.txt" "$WORK/after.txt")
    if ((${#added[@]})); then
        say "purging what the install pulled in: ${added[*]}"
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get purge -y -q "${added[@]}" >/dev/null || rc=1
    fi
    rm -rf "$WORK"
    exit $rc
}
trap cleanup EXIT

say "installing $DEB"
installed=1
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "$DEB" \
    >"$WORK/install.log" 2>&1 || { tail -20 "$WORK/install.log"; fail "apt-get install"; }
dpkg -L rcl | sort >"$WORK/files.txt"

# Everything below runs as a user would: in a directory outside the tree, with the system's
# PATH only, so no tool of the build tree can be found.
mkdir "$WORK/use" && cd "$WORK/use"
export PATH=/usr/bin:/bin
unset CC CXX LD_LIBRARY_PATH PKG_CONFIG_PATH
for v in $(env | sed -n 's/^\(RCL_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

LIBRCL=$(grep '/librcl\.so$' "$WORK/files.txt")
loads_librcl() { # loads_librcl PROGRAM: it loads the package's librcl.so
    local lib
    lib=$(ldd "$1" | sed -n 's/.*librcl\.so[.0-9]* => \([^ ]*\).*/\1/p')
    [ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "$LIBRCL")" ]
}

runs() { # runs NAME PROGRAM EXPECTED: the program prints EXPECTED, in each mode
    local name=$1 prog=$2 want=$3 mode
    for mode in default delegate; do
        local out
        if [ $mode = default ]; then out=$("$prog"); else out=$(RCL_MODE=delegate "$prog"); fi ||
            fail "$name: $prog exited with an error (mode $mode)"
        [ "$out" = "$want" ] || fail "$name: $prog printed '$out', expected '$want' (mode $mode)"
    done
    say "$name: ok (default mode and RCL_MODE=delegate)"
}

cat >counter.c <<'EOF'
#include <pthread.h>
#include <stddef.h> /* one of Clang's builtin headers: rcl-rewrite must find them installed */
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

void counter_add(long n) {
    pthread_mutex_lock(&lock);
    counter += n;
    pthread_mutex_unlock(&lock);
}

long counter_get(void) {
    pthread_mutex_lock(&lock);
    long v = counter;
    pthread_mutex_unlock(&lock);
    return v;
}

#ifndef NO_MAIN
static void *worker(void *arg) {
    for (int i = 0; i < 1000; i++)
        counter_add(1);
    return arg;
}

int main(void) {
    pthread_t t[4];
    for (size_t i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (size_t i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    printf("counter %ld\n", counter_get());
    return 0;
}
#endif
EOF
cat >hand.c <<'EOF'
#include <rcl/rcl.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static int add(void *ctx) {
    counter += *(long *)ctx;
    return 0;
}

static void *worker(void *arg) {
    for (long i = 0; i < 1000; i++) {
        long one = 1;
        rcl_delegate_ctx(&lock, add, &one, sizeof one);
    }
    return arg;
}

int main(void) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    printf("counter %ld servers %d\n", counter, rcl_server_count());
    return 0;
}
EOF

# pkg-config: librcl.so from /usr.
clang-19 -O1 -pthread hand.c $(pkg-config --cflags --libs rcl) -o hand ||
    fail "pkg-config: building with \$(pkg-config --cflags --libs rcl)"
loads_librcl ./hand || fail "pkg-config: hand does not load $LIBRCL"
runs "pkg-config --cflags --libs rcl" ./hand "counter 4000 servers 1"

# find_package(rcl CONFIG), the static library.
mkdir cmake-project
cat >cmake-project/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(uses_rcl C)
find_package(rcl CONFIG REQUIRED)
add_executable(hand ../hand.c)
target_link_libraries(hand PRIVATE rcl::rcl_static)
EOF
cmake -S cmake-project -B cmake-build -DCMAKE_C_COMPILER=clang-19 >"$WORK/cmake.log" 2>&1 &&
    cmake --build cmake-build >>"$WORK/cmake.log" 2>&1 ||
    { tail -20 "$WORK/cmake.log"; fail "find_package(rcl CONFIG): the CMake project does not build"; }
runs "find_package(rcl CONFIG), rcl::rcl_static" cmake-build/hand "counter 4000 servers 1"

# make CC=rcl-cc: the critical sections are converted by the installed rcl-rewrite, the program
# linked with the installed librcl.so; rcl-cc names no file outside the installation.
printf 'counter: counter.c\n\t$(CC) -O1 -pthread counter.c -o counter\n' >Makefile
RCL_CC_VERBOSE=1 make CC=rcl-cc >"$WORK/rcl-cc.log" 2>&1 ||
    { cat "$WORK/rcl-cc.log"; fail "make CC=rcl-cc"; }
grep -q "rcl-cc: counter.c: 2 sections converted, 0 refused" "$WORK/rcl-cc.log" ||
    { cat "$WORK/rcl-cc.log"; fail "rcl-cc did not convert counter.c's two sections"; }
grep -q "/usr/bin/rcl-rewrite" "$WORK/rcl-cc.log" || fail "rcl-cc did not run /usr/bin/rcl-rewrite"
if grep -F -e "$ROOT" -e "$BUILD" "$WORK/rcl-cc.log"; then
    fail "rcl-cc used a file of the source or build tree"
fi
nm counter | grep "rcl_cs_counter_add_1" >/dev/null || fail "rcl-cc: counter has no outlined section"
loads_librcl ./counter || fail "rcl-cc: counter does not load $LIBRCL"
runs "make CC=rcl-cc" ./counter "counter 4000"

# A mixed C/C++ program: the C object converted by rcl-cc, linked by rcl-c++.
cat >main.cpp <<'EOF'
#include <cstdio>
#include <thread>
#include <vector>
extern "C" void counter_add(long n);
extern "C" long counter_get(void);
int main() {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([] { for (int i = 0; i < 1000; i++) counter_add(1); });
    for (std::thread &t : threads)
        t.join();
    std::printf("counter %ld\n", counter_get());
}
EOF
rcl-cc -O1 -DNO_MAIN -c counter.c -o counter.o 2>/dev/null || fail "rcl-cc -c counter.c"
rcl-c++ -O1 -pthread main.cpp counter.o -o mixed || fail "rcl-c++: the mixed program does not link"
runs "CC=rcl-cc CXX=rcl-c++" ./mixed "counter 4000"

# The other tools, from their installed places.
clang-19 -g -O1 -pthread counter.c -o plain || fail "clang-19 counter.c"
rcl-prof -o "$WORK/profile.txt" --json "$WORK/profile.json" -- ./plain >/dev/null ||
    fail "rcl-prof -- ./plain"
grep -q "counter.c:" "$WORK/profile.txt" || fail "rcl-prof: no call site of counter.c in the report"
rcl-info >/dev/null || fail "rcl-info"
rcl --version | grep "^rcl $VERSION" >/dev/null || fail "rcl --version"
say "rcl-prof, rcl-info, rcl: ok"

# The manual pages, as man shows them (MANWIDTH for a terminal-less run).
for page in rcl rcl-cc rcl-c++ rcl-rewrite rcl-prof rcl-info rcl_delegate rcl_delegate_ctx \
    rcl_delegate_allocator rcl_delegate_flags rcl_start \
    rcl_cond_wait librcl; do
    LC_ALL=C MANWIDTH=80 man "$page" 2>"$WORK/man.err" | grep "^NAME" >/dev/null || fail "man $page"
    [ -s "$WORK/man.err" ] && { cat "$WORK/man.err"; fail "man $page: warnings"; }
done
LC_ALL=C MANWIDTH=80 man rcl-cc | grep -E "rcl-cc +- +a +drop-in" >/dev/null || fail "man rcl-cc: not its page"
say "man pages: ok"

cd "$WORK"
say "removing the package"
$SUDO apt-get remove -y -q rcl >"$WORK/remove.log" 2>&1 || { cat "$WORK/remove.log"; fail "apt-get remove rcl"; }
left=0
while read -r f; do
    if [ -e "$f" ] && [ ! -d "$f" ]; then say "left after remove: $f"; left=1; fi
done <"$WORK/files.txt"
[ "$left" = 0 ] || fail "apt-get remove left files of the package"
$SUDO apt-get purge -y -q rcl >>"$WORK/remove.log" 2>&1 || fail "apt-get purge rcl"
if dpkg -L rcl >/dev/null 2>&1; then fail "dpkg still lists rcl's files after the purge"; fi
if dpkg-query -W -f='${db:Status-Abbrev}' rcl 2>/dev/null | grep '^.[^n]' >/dev/null; then
    fail "dpkg still knows rcl after the purge"
fi
installed=0
say "removed: no file and no record of it left"
say "passed"
