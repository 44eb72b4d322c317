# Zstandard: ZSTD_pthread_mutex_lock is a macro for pthread_mutex_lock (lib/common/threading.h);
# the library (multithreaded) and the CLI from its plain Makefiles. Suite: a -T4 round trip.
CONFIGURE=':'
BUILD_CMD='make -C lib -j"$JOBS" CC="$CC" lib-mt && make -C programs -j"$JOBS" CC="$CC" zstd'
TEST_CMD='tar -cf ../rt.tar lib && programs/zstd -T4 -B64KiB -5 -c ../rt.tar >../rt.tar.zst && programs/zstd -d -c ../rt.tar.zst | cmp - ../rt.tar && echo round trip ok'
TEST_TIMEOUT=120
