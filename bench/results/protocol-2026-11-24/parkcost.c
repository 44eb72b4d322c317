/* One client delegating at random 0-30 us gaps: the server parks between most calls
 * (RCL_SERVER_SPIN_NS=0), so each call pays the wake-up of a parked server. */
#include <rcl/rcl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int inc(void *a) {
    (void)a;
    counter++;
    return 0;
}
static uint64_t now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000ull + t.tv_nsec;
}
int main(void) {
    unsigned seed = 1;
    uint64_t in_calls = 0;
    rcl_delegate(&m, inc, NULL);
    for (int i = 0; i < 20000; i++) {
        uint64_t until = now() + rand_r(&seed) % 30000;
        while (now() < until)
            __builtin_ia32_pause();
        uint64_t t0 = now();
        rcl_delegate(&m, inc, NULL);
        in_calls += now() - t0;
    }
    printf("%.0f\n", (double)in_calls / 20000);
    return 0;
}
