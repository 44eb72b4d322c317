# Sourced (POSIX sh) by the e2e scripts (memcached.sh, xz-utils.sh, libuv.sh) once they have set
# E2E, their own directory as an absolute path: the command line they share, and the check of
# the files a run uses. Every path a script uses after it cd's into its work folder is absolute:
# a relative one (a script invoked as test/e2e/memcached.sh, a BUILD_DIR of `build`) would be
# read from the wrong folder there.
#
#   rcl_e2e_arguments DEFAULT_WORK_DIR "$@"
#       reads [--dry-run] [BUILD_DIR] [WORK_DIR] (defaults: build, DEFAULT_WORK_DIR) and sets
#       BUILD and WORK, both absolute, and RCL_E2E_DRY_RUN (1 with --dry-run, else empty).
#       -h/--help prints the script's header comment and exits 0; an unknown option, a third
#       argument or a BUILD_DIR that is not a directory exits 2.
#   rcl_e2e_need FILE...
#       fails unless each FILE is an absolute path to a file that exists; with --dry-run
#       prints `uses: FILE` for each.
#   rcl_e2e_dry_run STEP...
#       with --dry-run prints `would: STEP` for each, then exits 0; otherwise does nothing.

rcl_e2e_usage() {
    sed -n '1d; /^#/!q; s/^# \{0,1\}//p' "$E2E/$(basename "$0")"
}

rcl_e2e_arguments() {
    rcl_e2e_default_work=$1
    shift
    RCL_E2E_DRY_RUN=""
    # Each argument is taken from the front once: options are read, the others go to the back.
    rcl_e2e_left=$#
    while [ "$rcl_e2e_left" -gt 0 ]; do
        case $1 in
        -h | --help) rcl_e2e_usage; exit 0 ;;
        --dry-run) RCL_E2E_DRY_RUN=1 ;;
        -*) echo "$(basename "$0"): unknown option $1 (see --help)" >&2; exit 2 ;;
        *) set -- "$@" "$1" ;;
        esac
        shift
        rcl_e2e_left=$((rcl_e2e_left - 1))
    done
    if [ $# -gt 2 ]; then
        echo "$(basename "$0"): at most two arguments, BUILD_DIR and WORK_DIR (see --help)" >&2
        exit 2
    fi
    if [ ! -d "${1:-build}" ]; then
        echo "$(basename "$0"): no build directory '${1:-build}' (see --help)" >&2
        exit 2
    fi
    BUILD=$(cd "${1:-build}" && pwd)
    WORK=${2:-$rcl_e2e_default_work}
    case $WORK in
    /*) ;;
    *) WORK=$(pwd)/$WORK ;;
    esac
    if [ -n "$RCL_E2E_DRY_RUN" ]; then
        echo "build: $BUILD"
        echo "work: $WORK"
    fi
}

rcl_e2e_need() {
    for rcl_e2e_file in "$@"; do
        case $rcl_e2e_file in
        /*) ;;
        *) echo "$(basename "$0"): internal error: relative path $rcl_e2e_file" >&2; exit 70 ;;
        esac
        if [ ! -f "$rcl_e2e_file" ]; then
            echo "$(basename "$0"): missing $rcl_e2e_file" >&2
            exit 1
        fi
        [ -z "$RCL_E2E_DRY_RUN" ] || echo "uses: $rcl_e2e_file"
    done
}

rcl_e2e_dry_run() {
    [ -n "$RCL_E2E_DRY_RUN" ] || return 0
    for rcl_e2e_step in "$@"; do
        echo "would: $rcl_e2e_step"
    done
    exit 0
}
