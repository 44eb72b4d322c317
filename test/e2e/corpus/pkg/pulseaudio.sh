# PulseAudio: pa_mutex_lock/pa_mutex_unlock (src/pulsecore/mutex-posix.c) wrap
# pthread_mutex_lock on a pa_mutex. Meson, without the daemon's optional modules.
RCL_CONF='lock-fn=pa_mutex_lock\nunlock-fn=pa_mutex_unlock'
CONFIGURE='CC="$CC" meson setup _build -Dbuildtype=plain -Dman=false -Dtests=false -Ddoxygen=false -Dgtk=disabled -Dbluez5=disabled -Dwebrtc-aec=disabled'
BUILD_CMD='ninja -C _build -j"$JOBS"'
