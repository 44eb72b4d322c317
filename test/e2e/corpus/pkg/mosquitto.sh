# Mosquitto: the client library locks with pthread_mutex_lock directly (lib/). CMake, without
# the documentation. Suite: a smoke test, 50 messages at QoS 1 from mosquitto_pub through the
# broker to mosquitto_sub on a local port (all three converted).
CONFIGURE='cmake -S . -B _build -G Ninja -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=None -DDOCUMENTATION=OFF -DWITH_CJSON=OFF'
BUILD_CMD='ninja -C _build -j"$JOBS"'
TEST_CMD='p=$((20000 + RANDOM % 20000))
_build/src/mosquitto -p $p >../broker.log 2>&1 & b=$!
sleep 1
_build/client/mosquitto_sub -p $p -t t -q 1 -C 50 -W 30 >../sub.out & s=$!
sleep 1
seq 50 | _build/client/mosquitto_pub -p $p -t t -q 1 -l; r1=$?
wait $s; r=$?
kill $b; wait $b
[ $r1 = 0 ] && [ $r = 0 ] && [ "$(wc -l <../sub.out)" = 50 ] && echo "50 messages at QoS 1 through the broker"'
TEST_TIMEOUT=60
