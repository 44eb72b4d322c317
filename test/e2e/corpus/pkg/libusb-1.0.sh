# libusb: usbi_mutex_lock/usbi_mutex_unlock and the _static_ pair, static inline wrappers of
# pthread_mutex_lock/unlock (libusb/os/threads_posix.h). No device is needed by its suite
# (tests/stress, tests/set_option and the others run on a context without devices).
RCL_CONF='lock-fn=usbi_mutex_lock\nunlock-fn=usbi_mutex_unlock\nlock-fn=usbi_mutex_static_lock\nunlock-fn=usbi_mutex_static_unlock'
CONFIGURE='./configure CC="$CC" --disable-udev'
BUILD_CMD='make -j"$JOBS" && make -j"$JOBS" check TESTS='
TEST_CMD='make check'
TEST_TIMEOUT=180
