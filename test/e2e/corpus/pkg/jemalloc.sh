# jemalloc: malloc_mutex_lock(tsdn, mutex)/malloc_mutex_unlock (include/jemalloc/internal/
# mutex.h): a trylock, a spinning slow path, statistics and witness checks around
# pthread_mutex_lock.
RCL_CONF='lock-fn=malloc_mutex_lock\nunlock-fn=malloc_mutex_unlock'
CONFIGURE='autoconf && ./configure CC="$CC" --disable-doc'   # autoconf only (autoheader fails)
BUILD_CMD='make -j"$JOBS" build_lib'
