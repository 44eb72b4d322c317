# libusb: usbi_mutex_lock/usbi_mutex_unlock and the _static_ pair, static inline wrappers of
# pthread_mutex_lock/unlock (libusb/os/threads_posix.h). No device is needed by its suite
# (tests/stress: contexts, device lists and default-context changes, with no device). The
# tests are built with --enable-tests-build.
RCL_CONF='lock-fn=usbi_mutex_lock\nunlock-fn=usbi_mutex_unlock\nlock-fn=usbi_mutex_static_lock\nunlock-fn=usbi_mutex_static_unlock'
CONFIGURE='./configure CC="$CC" --disable-udev --enable-tests-build'
BUILD_CMD='make -j"$JOBS"'
TEST_CMD='tests/stress'
TEST_TIMEOUT=180
