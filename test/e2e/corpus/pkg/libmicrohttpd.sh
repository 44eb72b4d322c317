# libmicrohttpd: MHD_mutex_lock_chk_/MHD_mutex_unlock_chk_ macros over pthread_mutex_lock that
# abort on an error (src/microhttpd/mhd_locks.h).
CONFIGURE='./configure CC="$CC" --disable-doc --disable-examples --disable-https'
BUILD_CMD='make -j"$JOBS"'
