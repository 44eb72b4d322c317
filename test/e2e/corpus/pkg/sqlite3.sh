# SQLite: sqlite3_mutex_enter/sqlite3_mutex_leave (declared as wrappers; they call the mutex
# methods through pointers, pthreadMutexEnter locks); the library is the amalgamation, one TU.
RCL_CONF='lock-fn=sqlite3_mutex_enter\nunlock-fn=sqlite3_mutex_leave'
CONFIGURE='./configure CC="$CC" --disable-tcl --enable-threadsafe'
BUILD_CMD='make -j"$JOBS" sqlite3.c && make -j"$JOBS" libsqlite3.la sqlite3'
