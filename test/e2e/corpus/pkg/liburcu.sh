# Userspace RCU: the flavours' static mutex_lock/mutex_unlock (src/urcu.c and the others) wrap
# pthread_mutex_lock/unlock and die on an error. The unit tests only (tests/unit; the
# regression and benchmark tests run for minutes).
RCL_CONF='lock-fn=mutex_lock\nunlock-fn=mutex_unlock'
CONFIGURE='autoreconf -fi && ./configure CC="$CC"'   # Debian's patches touch Makefile.am
BUILD_CMD='make -j"$JOBS" && make -j"$JOBS" -C tests/unit check TESTS='
TEST_CMD='make -C tests/unit check'
TEST_TIMEOUT=240
