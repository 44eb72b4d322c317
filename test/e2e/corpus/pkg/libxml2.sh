# libxml2: xmlMutexLock/xmlMutexUnlock (threads.c) wrap pthread_mutex_lock on an xmlMutex.
# make check runs runtest (with its threaded tests) and the others, about two minutes.
RCL_CONF='lock-fn=xmlMutexLock\nunlock-fn=xmlMutexUnlock'
CONFIGURE='./configure CC="$CC" --without-python'
BUILD_CMD='make -j"$JOBS"'
TEST_CMD='make check'
TEST_TIMEOUT=400
FAILED_CMD='grep -E "^(## .* failed|Total .* [1-9][0-9]* errors)|failed$" '
