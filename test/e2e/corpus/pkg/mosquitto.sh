# Mosquitto: the client library locks with pthread_mutex_lock directly (lib/). CMake, without
# the documentation.
CONFIGURE='cmake -S . -B _build -G Ninja -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=None -DDOCUMENTATION=OFF -DWITH_CJSON=OFF'
BUILD_CMD='ninja -C _build -j"$JOBS"'
