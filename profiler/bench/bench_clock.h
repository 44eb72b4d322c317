/*
 * bench_clock.h - the times the profiler's benchmarks print for bench/overhead.py, measured
 * around their loop (start-up, the profiler's dump and its report are not in them): one line,
 * "<wall ns> <cpu ns>", the loop's wall time and the CPU time all the process's threads spent
 * in it. On a machine shared with other work the CPU time moves less with the load than the
 * wall time does: a descheduled thread is not charged for the wait.
 */
#ifndef RCL_PROF_BENCH_CLOCK_H
#define RCL_PROF_BENCH_CLOCK_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct bench_clock {
    uint64_t wall_ns, cpu_ns;
};

static inline uint64_t bench_clock_read(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline struct bench_clock bench_clock_start(void) {
    struct bench_clock c = {bench_clock_read(CLOCK_MONOTONIC),
                            bench_clock_read(CLOCK_PROCESS_CPUTIME_ID)};
    return c;
}

static inline void bench_clock_print(struct bench_clock start) {
    printf("%llu %llu\n", (unsigned long long)(bench_clock_read(CLOCK_MONOTONIC) - start.wall_ns),
           (unsigned long long)(bench_clock_read(CLOCK_PROCESS_CPUTIME_ID) - start.cpu_ns));
}

#endif /* RCL_PROF_BENCH_CLOCK_H */
