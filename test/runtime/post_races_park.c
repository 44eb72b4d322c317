// A request posted while its idle server parks is never lost. The posting client pays no fence
// (server.c, "Parking an idle server": where membarrier(2) is available the parking server
// issues it for both sides), so a post may still sit in the client's store buffer when the
// server sets `sleeping` and re-scans; the client must then see `sleeping` and wake it. Here
// the server parks after 64 idle passes (RCL_SERVER_SPIN_NS=0) and one client -- nobody else
// could wake the server -- posts at random moments around that, many thousand times. A lost
// post leaves the server asleep and the client waiting for ever: the watchdog fails the test.
// RUN: %cc %rcl_internal %s -o %t %rcl_libs
// RUN: env RCL_SERVER_SPIN_NS=0 %t | FileCheck %s
// CHECK: posts around parking: 20000 calls, none lost
#include "Inputs/harness.h"
#include "internal.h"
#include <rcl/rcl.h>
#include <signal.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static volatile sig_atomic_t calls;

static int inc(void *arg) {
    (void)arg;
    counter++;
    return 0;
}

static void watchdog(int sig) {
    (void)sig;
    static const char msg[] = "post_races_park: a delegated call never returned (a lost post)\n";
    write(2, msg, sizeof msg - 1);
    _exit(1);
}

int main(void) {
    signal(SIGALRM, watchdog);
    alarm(60);
    struct rcl_server *s = rcl__server(0);
    CHECK(s != NULL);
    uint64_t parks0 = atomic_load(&s->parks);
    unsigned seed = 12345;
    for (int i = 0; i < 20000; i++) {
        /* 0-30 us: the server parks after 64-128 idle passes, some microseconds */
        uint64_t until = rcl_now_ns() + rand_r(&seed) % 30000;
        while (rcl_now_ns() < until)
            rcl_cpu_relax();
        rcl_delegate(&m, inc, NULL);
        calls = i + 1;
    }
    uint64_t parks = atomic_load(&s->parks) - parks0;
    fprintf(stderr, "server parked %llu times (light posts: %d)\n", (unsigned long long)parks,
            (int)rcl_post_light);
    CHECK(counter == 20000);
    CHECK(parks >= 100); /* the race was exercised */
    printf("posts around parking: %ld calls, none lost\n", counter);
    return 0;
}
