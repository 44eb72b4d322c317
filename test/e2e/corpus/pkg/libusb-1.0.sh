# libusb: usbi_mutex_lock/usbi_mutex_unlock and the _static_ pair, static inline wrappers of
# pthread_mutex_lock/unlock (libusb/os/threads_posix.h) that check the result. No suite here:
# its tests (tests/stress, built with --enable-tests-build) fail at libusb_init (-99) on a
# machine without /dev/bus/usb, the original as the converted build.
RCL_CONF='lock-fn=usbi_mutex_lock\nunlock-fn=usbi_mutex_unlock\nlock-fn=usbi_mutex_static_lock\nunlock-fn=usbi_mutex_static_unlock'
CONFIGURE='./configure CC="$CC" --disable-udev --enable-tests-build'
BUILD_CMD='make -j"$JOBS"'
