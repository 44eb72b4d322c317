# Avahi: avahi-common's threaded poll loop locks with pthread_mutex_lock directly.
CONFIGURE='./configure CC="$CC" --disable-qt3 --disable-qt4 --disable-qt5 --disable-gtk --disable-gtk3 --disable-mono --disable-monodoc --disable-python --disable-manpages --disable-xmltoman --disable-doxygen-doc --with-distro=debian --disable-libevent'
BUILD_CMD='make -j"$JOBS"'
