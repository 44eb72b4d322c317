# APR: apr_thread_mutex_lock/unlock (locks/unix/thread_mutex.c) wrap pthread_mutex_lock on an
# apr_thread_mutex_t; the callers (pools, the thread pool...) lock through them. Its suite is
# test/testall (make check), about two minutes on the 2-vCPU VM. apr_thread_mutex_timedlock is
# its timed wrapper (a relative timeout, a trylock when it is not positive): testlockperf's
# timed test takes its lock 21 M times through it.
RCL_CONF='lock-fn=apr_thread_mutex_lock\nunlock-fn=apr_thread_mutex_unlock\ntimedlock-fn=apr_thread_mutex_timedlock'
TEST_CMD='make check'
FAILED_CMD='sed -n "s/^\(test[a-z_0-9]*\) *: *.*FAILED.*/\1/p; s/^\(test[a-z_0-9]*\) *[0-9][0-9]* *[0-9][0-9]* *[0-9.]*%.*/\1/p"'
TEST_TIMEOUT=300
