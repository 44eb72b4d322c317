# APR-util: locks through APR's apr_thread_mutex_lock/unlock (declared as wrappers).
RCL_CONF='lock-fn=apr_thread_mutex_lock\nunlock-fn=apr_thread_mutex_unlock'
CONFIGURE='./configure CC="$CC" --with-apr=/usr/bin/apr-1-config'
BUILD_CMD='make -j"$JOBS" CC="$CC"'   # APR's rules.mk would use APR's own CC (gcc)
