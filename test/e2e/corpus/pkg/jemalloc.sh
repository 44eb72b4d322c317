# jemalloc: malloc_mutex_lock(tsdn, mutex)/malloc_mutex_unlock (include/jemalloc/internal/
# mutex.h): a trylock, a spinning slow path, statistics and witness checks around
# pthread_mutex_lock.
RCL_CONF='lock-fn=malloc_mutex_lock\nunlock-fn=malloc_mutex_unlock'
CONFIGURE='autoconf && ./configure CC="$CC" --disable-doc'   # autoconf only (autoheader fails)
BUILD_CMD='make -j"$JOBS" build_lib'
# Its integration tests (the library as the program's malloc: the sections call
# rcl_delegate_allocator and the runtime starts from a constructor; docs/runtime.md, "The
# program's allocator"). jemalloc prints its own results: "=== test/integration/NAME ===", then
# "test_x (variant): fail".
TEST_CMD='make -j"$JOBS" check_integration'
FAILED_CMD="awk '/^=== .* ===\$/ { t = \$2 } / \\(.*\\): fail\$/ && !seen[t, \$1]++ { print t \": \" \$1 }'"
TEST_TIMEOUT=600
