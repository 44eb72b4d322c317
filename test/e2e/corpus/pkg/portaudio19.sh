# PortAudio: PaUnixMutex_Lock/PaUnixMutex_Unlock (src/os/unix/pa_unix_util.c) wrap
# pthread_mutex_lock on a PaUnixMutex. No suite without a sound device.
RCL_CONF='lock-fn=PaUnixMutex_Lock\nunlock-fn=PaUnixMutex_Unlock'
BUILD_CMD='make -j"$JOBS"'
