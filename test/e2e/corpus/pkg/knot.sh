# Knot DNS: pthread_mutex_lock directly (the server, the zone events, libknot's caches);
# without the documentation and the slow-to-build fast zone parser.
CONFIGURE='./configure CC="$CC" --disable-documentation --disable-fastparser'
BUILD_CMD='make -j"$JOBS"'
