// pthread_cond_wait/timedwait (the GLIBC_2.3.2 condvar ABI, through dlvsym): the time a
// thread sleeps in the wait is not hold time. A consumer waits ~150 ms in total inside its
// critical sections but holds the lock only microseconds; the profile's % time in CS stays near
// what the program measured (a few %), it would be ~30 % if the wait counted.
// RUN: %cc %s -o %t
// RUN: %rcl-prof --json %t.json -- %t %t.self
// RUN: %python %S/Inputs/profile_lines.py %t.json --self %t.self | FileCheck %s
// CHECK: lock 1 queue_lock identity=symbol acq=
// CHECK: cs-check queue_lock ok
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "Inputs/spin.h"

#define ITEMS 30

pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static int queued, consumed;
static uint64_t hold_ns, consumer_life;

static void *consumer(void *arg) {
    (void)arg;
    uint64_t start = now_ns();
    pthread_mutex_lock(&queue_lock);
    uint64_t t0 = now_ns();
    while (consumed < ITEMS) {
        while (queued == 0) {
            hold_ns += now_ns() - t0;
            if (consumed % 2) {
                pthread_cond_wait(&nonempty, &queue_lock);
            } else {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_sec += 5;
                if (pthread_cond_timedwait(&nonempty, &queue_lock, &ts) == ETIMEDOUT)
                    return (void *)1;
            }
            t0 = now_ns();
        }
        queued--;
        consumed++;
    }
    hold_ns += now_ns() - t0;
    pthread_mutex_unlock(&queue_lock);
    consumer_life = now_ns() - start;
    return NULL;
}

int main(int argc, char **argv) {
    uint64_t start = now_ns();
    pthread_t t;
    pthread_create(&t, NULL, consumer, NULL);
    for (int i = 0; i < ITEMS; i++) {
        usleep(5000);
        pthread_mutex_lock(&queue_lock);
        uint64_t t0 = now_ns();
        queued++;
        pthread_cond_signal(&nonempty);
        hold_ns += now_ns() - t0;
        pthread_mutex_unlock(&queue_lock);
    }
    void *ret;
    pthread_join(t, &ret);
    uint64_t total = now_ns() - start + consumer_life;
    FILE *f = fopen(argc > 1 ? argv[1] : "/dev/stdout", "w");
    fprintf(f, "cs queue_lock %.3f\n", 100.0 * hold_ns / total);
    fclose(f);
    return ret != NULL;
}
