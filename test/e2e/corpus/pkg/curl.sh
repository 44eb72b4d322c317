# curl: Curl_mutex_acquire/Curl_mutex_release are macros for pthread_mutex_lock/unlock
# (lib/curl_threads.h), the threaded resolver's and the share's locks.
CONFIGURE='./configure CC="$CC" --with-openssl --disable-manual --without-libpsl --without-librtmp'
BUILD_CMD='make -j"$JOBS" -C lib && make -j"$JOBS" -C src'
