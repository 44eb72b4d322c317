# LMDB: one library source (libraries/liblmdb/mdb.c; LOCK_MUTEX0/UNLOCK_MUTEX are macros for
# pthread_mutex_lock/unlock, the writer's mutex is robust) and its plain Makefile.
CONFIGURE=':'
BUILD_CMD='make -C libraries/liblmdb -j"$JOBS" CC="$CC"'
TEST_CMD='make -C libraries/liblmdb test && cd libraries/liblmdb && for t in 2 3 4 5; do ./mtest$t || exit 1; done'
TEST_TIMEOUT=120
