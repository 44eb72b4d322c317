/*
 * arch.h - the few architecture- and kernel-specific primitives the runtime needs:
 * a spin-wait hint, a monotonic clock in nanoseconds, direct system calls (private futexes) and
 * the thread pointer.
 */
#ifndef RCL_ARCH_H
#define RCL_ARCH_H

#include <errno.h>
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

/* System calls that leave errno alone: a client waits while a section runs on a server as that
 * client (caller.c), with the client's thread-local storage, errno included, so nothing the
 * client does while it waits may write there (the futex calls). The same direct call answers
 * the program's syscall() (caller.c's __wrap_syscall), which must not call the C library's
 * syscall: in a -static link that call would be wrapped too. x86-64 and AArch64 make the
 * system call directly (RCL_SYS_DIRECT); elsewhere no section runs as its caller, and syscall()
 * is used. The result is the kernel's: -errno on failure. */
#if defined(__x86_64__)
#define RCL_SYS_DIRECT 1
static inline long rcl_sys6(long nr, long a, long b, long c, long d, long e, long f) {
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long ret;
    __asm__ __volatile__("syscall"
                         : "=a"(ret)
                         : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                         : "rcx", "r11", "memory");
    return ret;
}
#elif defined(__aarch64__)
#define RCL_SYS_DIRECT 1
static inline long rcl_sys6(long nr, long a, long b, long c, long d, long e, long f) {
    register long x8 __asm__("x8") = nr;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    register long x5 __asm__("x5") = f;
    __asm__ __volatile__("svc 0"
                         : "+r"(x0)
                         : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                         : "memory");
    return x0;
}
#else
#define RCL_SYS_DIRECT 0
static inline long rcl_sys6(long nr, long a, long b, long c, long d, long e, long f) {
    long r = syscall(nr, a, b, c, d, e, f);
    return r == -1 ? -errno : r;
}
#endif

static inline long rcl_sys_futex(uint32_t *word, int op, uint32_t val, const struct timespec *ts) {
    return rcl_sys6(SYS_futex, (long)word, op, (long)val, (long)ts, 0, 0);
}

static inline void rcl_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t timeout_ns) {
    struct timespec ts, *tsp = NULL;
    if (timeout_ns) {
        ts.tv_sec = (time_t)(timeout_ns / 1000000000u);
        ts.tv_nsec = (long)(timeout_ns % 1000000000u);
        tsp = &ts;
    }
    rcl_sys_futex((uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, tsp);
}

static inline void rcl_futex_wake(_Atomic uint32_t *word, int count) {
    rcl_sys_futex((uint32_t *)word, FUTEX_WAKE_PRIVATE, (uint32_t)count, NULL);
}

/* The thread pointer (the C library's thread control block: thread-local storage, errno,
 * pthread_self, thread-specific data), read and set by the calling thread (caller.c).
 * RCL_TP_ARCH: this architecture can set it from user space cheaply (x86-64: when the kernel
 * enables FSGSBASE, which caller.c checks at start-up). */
#if defined(__x86_64__)
#define RCL_TP_ARCH 1
static inline uintptr_t rcl_tp_get(void) {
    uintptr_t v;
    __asm__ __volatile__("rdfsbase %0" : "=r"(v));
    return v;
}
static inline void rcl_tp_set(uintptr_t v) {
    __asm__ __volatile__("wrfsbase %0" : : "r"(v) : "memory");
}
#elif defined(__aarch64__)
#define RCL_TP_ARCH 1
static inline uintptr_t rcl_tp_get(void) {
    uintptr_t v;
    __asm__ __volatile__("mrs %0, tpidr_el0" : "=r"(v));
    return v;
}
static inline void rcl_tp_set(uintptr_t v) {
    __asm__ __volatile__("msr tpidr_el0, %0" : : "r"(v) : "memory");
}
#else
#define RCL_TP_ARCH 0
static inline uintptr_t rcl_tp_get(void) {
    return 0;
}
static inline void rcl_tp_set(uintptr_t v) {
    (void)v;
}
#endif

#endif /* RCL_ARCH_H */
