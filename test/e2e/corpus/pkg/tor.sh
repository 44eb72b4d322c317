# Tor: tor_mutex_acquire/tor_mutex_release (src/lib/lock/compat_mutex_pthreads.c) wrap
# pthread_mutex_lock on a tor_mutex_t.
RCL_CONF='lock-fn=tor_mutex_acquire\nunlock-fn=tor_mutex_release'
CONFIGURE='./configure CC="$CC" --disable-asciidoc --disable-unittests --disable-module-relay'
BUILD_CMD='make -j"$JOBS"'
