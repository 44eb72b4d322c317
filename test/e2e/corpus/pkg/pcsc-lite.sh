# pcsc-lite: pcscd and libpcsclite lock with pthread_mutex_lock directly. No suite without a
# reader.
CONFIGURE='./configure CC="$CC" --disable-libsystemd --disable-polkit'
