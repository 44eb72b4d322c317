# xz-utils: the wrappers of test/e2e/xz-utils.sh (mythread_mutex_lock/unlock); make check, then
# a multithreaded round trip (xz -T4 in 64 KiB blocks, the threaded decoder, xzdec), which
# enters liblzma's multithreaded coder where its locks are.
RCL_CONF='lock-fn=mythread_mutex_lock\nunlock-fn=mythread_mutex_unlock'
CONFIGURE='./configure CC="$CC" --disable-nls --disable-doc'
BUILD_CMD='make -j"$JOBS" && make -j"$JOBS" check TESTS='
TEST_CMD='make check && tar -cf ../rt.tar src && src/xz/xz -T4 --block-size=64KiB -6 -c ../rt.tar >../rt.tar.xz && src/xz/xz -d -T4 -c ../rt.tar.xz | cmp - ../rt.tar && src/xzdec/xzdec ../rt.tar.xz | cmp - ../rt.tar && echo round trip ok'
TEST_TIMEOUT=240
