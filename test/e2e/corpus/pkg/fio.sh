# fio: pthread_mutex_lock directly in many places (its own configure). Suite: a short
# threaded random read/write job on a temporary file.
CONFIGURE='./configure --cc="$CC" --disable-native'
BUILD_CMD='make -j"$JOBS" fio'
TEST_CMD='mkdir -p ../fio-data && ./fio --name=t --directory=../fio-data --size=4M --rw=randrw --bs=4k --numjobs=4 --thread --ioengine=psync --runtime=5 --time_based --group_reporting >/dev/null && ./fio --name=v --directory=../fio-data --size=2M --rw=write --verify=crc32c --numjobs=2 --thread >/dev/null && echo ok'
TEST_TIMEOUT=120
