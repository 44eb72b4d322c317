# Unbound: lock_basic_lock/lock_quick_lock/lock_rw_*lock are macros of
# LOCKRET(pthread_mutex_lock(...)) (util/locks.h: a do-while that logs a failed call).
CONFIGURE='./configure CC="$CC" --disable-flto --without-pythonmodule --without-pyunbound'
BUILD_CMD='make -j"$JOBS"'
