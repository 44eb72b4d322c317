# FUSE 3: pthread_mutex_lock directly (lib/fuse.c, the multithreaded loop). Meson. No suite
# (it mounts file systems).
CONFIGURE='CC="$CC" meson setup _build -Dbuildtype=plain -Dexamples=false -Dutils=false -Duseroot=false'
BUILD_CMD='ninja -C _build -j"$JOBS"'
