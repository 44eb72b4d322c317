# libgpg-error: gpgrt's own locks (src/posix-lock.c wraps pthread_mutex_lock in
# _gpgrt_lock_lock/_gpgrt_lock_unlock, which take a gpgrt_lock_t, not a pthread mutex).
RCL_CONF='lock-fn=_gpgrt_lock_lock\nunlock-fn=_gpgrt_lock_unlock'
CONFIGURE='./configure CC="$CC" --disable-doc --disable-nls --disable-languages'
BUILD_CMD='make -j"$JOBS" && make -j"$JOBS" check TESTS='
TEST_CMD='make check'
TEST_TIMEOUT=120
