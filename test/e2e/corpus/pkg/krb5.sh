# MIT Kerberos: k5_mutex_lock/k5_mutex_unlock (include/k5-thread.h) wrap pthread_mutex_lock
# and assert on an error. The sources are under src/.
RCL_CONF='lock-fn=k5_mutex_lock\nunlock-fn=k5_mutex_unlock'
CONFIGURE='cd src && ./configure CC="$CC" --without-system-verto'
BUILD_CMD='make -C src -j"$JOBS"'
