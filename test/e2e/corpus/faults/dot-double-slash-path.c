/* Fault (corpus: libzstd, 64 of its 114 translation units compiled unchanged): a source named
 * with a leading "./" followed by another slash, as zstd's lib/Makefile names its sources
 * (".//common/debug.c": `$(wildcard $(LIBZSTD)/common/*.c)` with `LIBZSTD ?= ./`,
 * lib/libzstd.mk), makes rcl-rewrite look
 * for "/common/debug.c" (the "./" and the first "/" dropped: an absolute path), so the TU
 * fails in the rewriter and rcl-cc compiles it unchanged, its sections not even counted.
 * "./common/x.c" and "common//x.c" are fine; compiled as "./compress/zstdmt_compress.c"
 * zstd's files convert (11 sections converted, 16 refused; pool.c 5 and 2) and compile.
 *
 * Shown by dot-double-slash-path.sh (from the build directory's rewriter/):
 *   mkdir -p /tmp/f/common && cp dot-double-slash-path.c /tmp/f/common/a.c && cd /tmp/f &&
 *   rcl-rewrite --all --dry-run .//common/a.c --     # exit 1: no such file '/common/a.c'
 *   rcl-rewrite --all --dry-run ./common/a.c --      # exit 0: 1 converted
 *   rcl-cc -c .//common/a.c -o a.o                   # warning: compiled it unchanged
 */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;

void bump(void)
{
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
}
