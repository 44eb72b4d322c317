# libuv: the wrappers of test/e2e/libuv.sh (uv_mutex_lock/uv_mutex_unlock); CMake. Its suite
# refuses to run as root and takes ~80 s per run: test/e2e/libuv.sh runs it.
RCL_CONF='lock-fn=uv_mutex_lock\nunlock-fn=uv_mutex_unlock'
CONFIGURE='CFLAGS="-g -O2" cmake -S . -B _build -G Ninja -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=None -DLIBUV_BUILD_TESTS=OFF'
BUILD_CMD='ninja -C _build -j"$JOBS"'
