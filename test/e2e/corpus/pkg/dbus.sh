# D-Bus: _dbus_platform_rmutex_lock/_dbus_platform_cmutex_lock (dbus/dbus-sysdeps-pthread.c)
# wrap pthread_mutex_lock; the rest locks through _dbus_rmutex_lock and friends.
RCL_CONF='lock-fn=_dbus_platform_cmutex_lock\nunlock-fn=_dbus_platform_cmutex_unlock'
CONFIGURE='./configure CC="$CC" --disable-doxygen-docs --disable-xml-docs --disable-ducktype-docs --disable-tests'
BUILD_CMD='make -j"$JOBS"'
