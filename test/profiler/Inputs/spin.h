/* Helpers shared by the profiler's test programs: a CPU-bound wait of a given duration (a
 * critical section or local work whose length does not depend on the CPU's speed) and a
 * monotonic clock. */
#ifndef PROF_TEST_SPIN_H
#define PROF_TEST_SPIN_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void spin_ns(uint64_t ns) {
    uint64_t end = now_ns() + ns;
    while (now_ns() < end)
        __asm__ __volatile__("" ::: "memory");
}

#endif
