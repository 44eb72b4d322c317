# memcached: the wrappers of test/e2e/memcached.sh (item_lock/item_unlock on a lock table,
# STATS_LOCK/STATS_UNLOCK). Its suite (make test, ~7 minutes per mode) is that script's job.
RCL_CONF='lock-fn=item_lock\nunlock-fn=item_unlock\nlock-fn=STATS_LOCK\nunlock-fn=STATS_UNLOCK'
