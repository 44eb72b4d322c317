# libnl: nl_lock/nl_unlock (include/netlink-private/netlink.h), static inline wrappers of
# pthread_mutex_lock/unlock.
RCL_CONF='lock-fn=nl_lock\nunlock-fn=nl_unlock'
CONFIGURE='./configure CC="$CC" --disable-cli'
