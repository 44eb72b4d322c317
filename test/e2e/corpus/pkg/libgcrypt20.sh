# libgcrypt: locks through libgpg-error's gpgrt_lock_lock/gpgrt_lock_unlock (declared).
RCL_CONF='lock-fn=gpgrt_lock_lock\nunlock-fn=gpgrt_lock_unlock'
CONFIGURE='./configure CC="$CC" --disable-doc'
BUILD_CMD='make -j"$JOBS"'
