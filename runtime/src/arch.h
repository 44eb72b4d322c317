/*
 * arch.h - the few architecture- and kernel-specific primitives the runtime needs:
 * a spin-wait hint, a monotonic clock in nanoseconds, and private futexes.
 */
#ifndef RCL_ARCH_H
#define RCL_ARCH_H

#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RCL_CACHE_LINE 64

static inline void rcl_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/* A cheap timestamp for comparing two costs measured on the same machine (adaptive.c): the
 * TSC where there is one, nanoseconds elsewhere. Its unit is never shown to a user as time. */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t rcl_ticks(void) {
    return __rdtsc();
}
#else
static inline uint64_t rcl_ticks(void);
#define RCL_TICKS_ARE_NS 1
#endif

static inline uint64_t rcl_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep while *word == expected, at most timeout_ns (0: no limit). Spurious returns are
 * allowed: every caller re-checks its condition. */
#ifdef RCL_TICKS_ARE_NS
static inline uint64_t rcl_ticks(void) {
    return rcl_now_ns();
}
#endif

static inline void rcl_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t timeout_ns) {
    struct timespec ts, *tsp = NULL;
    if (timeout_ns) {
        ts.tv_sec = (time_t)(timeout_ns / 1000000000u);
        ts.tv_nsec = (long)(timeout_ns % 1000000000u);
        tsp = &ts;
    }
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, tsp, NULL, 0);
}

static inline void rcl_futex_wake(_Atomic uint32_t *word, int count) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

#endif /* RCL_ARCH_H */
