# libevent: locks through its evthread callbacks (EVLOCK_LOCK, function pointers set by
# evthread_use_pthreads); the pthread calls themselves are in evthread_pthread.c. Its
# threaded regression tests and a few groups more (test/regress GROUP/..), seconds.
CONFIGURE='./configure CC="$CC" --disable-openssl --disable-samples'
BUILD_CMD='make -j"$JOBS" && make -j"$JOBS" test/regress'
TEST_CMD='test/regress thread/.. main/.. evbuffer/.. bufferevent/..'
FAILED_CMD='sed -n "s/^ *\([a-z_0-9]*\/[a-z_0-9]*\): .*FAILED.*/\1/p"'
TEST_TIMEOUT=240
