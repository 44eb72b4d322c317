# MIT Kerberos: k5_mutex_lock/k5_mutex_unlock (include/k5-thread.h, static inline) store and
# assert the result of k5_os_mutex_lock/k5_os_mutex_unlock (util/support/threads.c), which lock
# only `if (krb5int_pthread_loaded())`: a test that finds once whether the thread library is
# there and remembers it, declared const so that it may guard them (docs/rewriter.md, "a
# wrapper guarded by a call"). The sources are under src/.
RCL_CONF='lock-fn=k5_mutex_lock\nunlock-fn=k5_mutex_unlock\nlock-fn=k5_os_mutex_lock\nunlock-fn=k5_os_mutex_unlock\nconst-fn=krb5int_pthread_loaded'
CONFIGURE='cd src && ./configure CC="$CC" --without-system-verto'
BUILD_CMD='make -C src -j"$JOBS"'
