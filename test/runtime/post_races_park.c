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
#include "Inputs/post_around_parking.h"

int main(void) {
    parking_watchdog_start();
    struct rcl_server *s = rcl__server(0);
    CHECK(s != NULL);
    uint64_t parks0 = atomic_load(&s->parks);
    post_around_parking(20000, 12345);
    uint64_t parks = atomic_load(&s->parks) - parks0;
    fprintf(stderr, "server parked %llu times (light posts: %d)\n", (unsigned long long)parks,
            (int)rcl_post_light);
    CHECK(parking_calls == 20000);
    CHECK(parks >= 100); /* the race was exercised */
    printf("posts around parking: %ld calls, none lost\n", parking_calls);
    return 0;
}
