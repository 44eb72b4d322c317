# Sourced (POSIX sh) by the e2e scripts (memcached-source.sh, xz-utils.sh, libuv.sh): fetch a
# Debian source package once and reuse it.
#
#   rcl_debian_source DIR PACKAGE VERSION SUBDIR
#       leaves DIR/SUBDIR, the unpacked (patched) source of PACKAGE=VERSION, or of the
#       version apt knows when that one is gone; fails when DIR/SUBDIR is still missing.
#
# apt-get source needs deb-src entries: they are added next to Debian's own sources
# (/etc/apt/sources.list.d/rcl-debian-src.sources) when none exist. Installs dpkg-dev (for
# dpkg-source) when missing. Needs root the first time; scripts/setup.sh installs what the
# programs' builds need.
#
#   rcl_debian_src_enable
#       adds the deb-src entries when none exist, so that apt-cache showsrc and apt-get source
#       know the source packages (a fresh machine has only the binary ones).
rcl_debian_src_enable() {
    if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
            > /etc/apt/sources.list.d/rcl-debian-src.sources
        apt-get update -q >/dev/null
    fi
}
rcl_debian_source() {
    mkdir -p "$1"
    if [ -d "$1/$4" ]; then
        return 0
    fi
    rcl_debian_src_enable
    command -v dpkg-source >/dev/null ||
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q dpkg-dev >/dev/null
    (cd "$1" && { apt-get source "$2=$3" >/dev/null 2>&1 || apt-get source "$2" >/dev/null; })
    [ -d "$1/$4" ]
}
