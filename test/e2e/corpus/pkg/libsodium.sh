# libsodium: sodium_crit_enter/sodium_crit_leave (src/libsodium/sodium/core.c) take a global
# pthread mutex and have no argument. Its suite: ~75 small programs (built with the library).
RCL_CONF='lock-fn=sodium_crit_enter\nunlock-fn=sodium_crit_leave'
CONFIGURE='autoreconf -fi && ./configure CC="$CC"'
BUILD_CMD='make -j"$JOBS" && make -j"$JOBS" check TESTS='
TEST_CMD='make check'
TEST_TIMEOUT=300
