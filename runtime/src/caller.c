/*
 * caller.c - running a critical section on a server as the thread that delegated it.
 *
 * ==========================================================================================
 * SECTIONS THAT USE THEIR CALLER'S THREAD STATE
 * ==========================================================================================
 *
 * Many sections reach their thread's state in the C library: a thread-local variable (a
 * cached thread id, a per-thread error handler, an allocator's per-thread cache), pthread_self
 * in a log line, thread-specific data (pthread_getspecific). On a server they would read and
 * write the server's. All of these live in the thread control block that the thread pointer
 * designates (x86-64: the FS base; AArch64: TPIDR_EL0): the static TLS block, the dynamic TLS
 * vector, errno, the thread-specific data array, pthread_self's value, the locale, malloc's
 * per-thread arena and cache. rcl-rewrite marks such a section (rcl_delegate_flags,
 * RCL_AS_CALLER); the server runs it with its thread pointer set to the client's, and back
 * to its own when the section returns. The section then sees the client's state, as it did in
 * the original program. What the kernel keeps per thread (the signal mask, the CPU affinity,
 * scheduling, the thread's name) does not move: rcl-rewrite still refuses sections that use it.
 * The one exception is the kernel's thread id, which librcl answers itself where the program's
 * links route gettid() and syscall(SYS_gettid) to it (below, "The caller's thread id").
 *
 * Who touches the client's thread control block, and when:
 *   - The client, before posting: masks every signal (pthread_sigmask) and disables
 *     cancellation (pthread_setcancelstate, a write to its own block). No handler then runs on
 *     the client while its state is in use on the server (a handler that saves and restores
 *     errno would otherwise race with the section), and no cancellation request acts on the
 *     server thread (a cancellation point inside the section would unwind the server, with
 *     the client's cleanup handlers). Both are restored after the answer; a signal or a
 *     cancellation request that came meanwhile acts then, as if it had come just after the
 *     section.
 *   - The client, while it waits: spins and futex-waits, writing nothing in its block that the
 *     section may use (the futex calls leave errno alone, arch.h; it writes only wait.c's own
 *     thread-local variables, which the server does not touch).
 *   - The server, between its acquire of the request and its release of the answer: runs the
 *     section with the client's thread pointer (rcl_run_as_caller). It sets rcl_as_caller, a
 *     thread-local variable of librcl, in the client's block for the section's duration, and
 *     reads the client's errno after the section (the answer's err) while it is still
 *     installed.
 * The request's acquire/release pair orders these: the client's writes before the post
 * happen before the section, the section's writes before the client reads its state again.
 * So at any time one thread at most uses the block, as in the original program.
 *
 * librcl's own state is thread-local too (the client record, rcl_self_server, ...), and inside
 * the section it is the client's. A section run as its caller that enters librcl again (a
 * nested converted section, a section of the program's allocator) sees rcl_as_caller set and
 * runs that nested section in place, under its mutex (mixed mode), on the server thread that
 * is running the outer one; it never delegates from there. A condition wait (rcl_cond_*) in
 * such a section is not supported: rcl-rewrite refuses those sections, and librcl stops the
 * program with a message if one comes anyway.
 *
 * The caller's thread id and name. rcl-cc links every program and library with
 * -Wl,--wrap=gettid,--wrap=syscall,--wrap=prctl, so that their calls of gettid(), syscall() and
 * prctl() reach __wrap_gettid, __wrap_syscall and __wrap_prctl here (rcl-rewrite
 * --librcl-thread-queries then lets a section that asks its thread's kernel id or name run as
 * its caller). Outside such a section they are the C library's calls (the same system call;
 * -1 and errno on failure). Inside one, on the server, gettid() and syscall(SYS_gettid) return
 * the client's id: rcl_caller_tid, a thread-local variable of the client's block that the
 * client fills before its first post (rcl_caller_enter, with a direct system call) and that its
 * fork handler clears in a child, whose thread has another id. The server reads it through the
 * client's thread pointer, like rcl_as_caller; the request's acquire/release pair orders the
 * client's write before the read. prctl(PR_GET_NAME) reads the client's name where the kernel
 * keeps it, /proc/self/task/<id>/comm (the name may change at any time, from any thread, as
 * the kernel's answer would), with direct system calls; its failure sets errno, the client's.
 *
 * When it is available: x86-64 with FSGSBASE enabled by the kernel (Linux 5.9 and later, on
 * processors since 2012; AT_HWCAP2), and AArch64. Not in a build with a sanitizer, whose own
 * per-thread state would be the client's on the server while the client runs too. Elsewhere a
 * section marked RCL_AS_CALLER runs in its caller, under its mutex, and RCL_STATS counts it.
 * ==========================================================================================
 */
#include "internal.h"

#include <signal.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/auxv.h>

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

/* Set in a client's block while a server runs one of its sections there. */
RCL_TLS bool rcl_as_caller;

bool rcl_caller_available(void) {
    if (RCL_SANITIZED || !RCL_TP_ARCH) return false;
#if defined(__x86_64__)
    return (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
#else
    return true;
#endif
}

uintptr_t rcl_caller_tp(void) {
    return rcl_rt.as_caller ? rcl_tp_get() : 0;
}

/* The client's kernel thread id, 0 until its first section run as its caller (above). */
RCL_TLS pid_t rcl_caller_tid;

void rcl_caller_enter(struct rcl_caller_save *save) {
    if (!rcl_caller_tid) rcl_caller_tid = (pid_t)rcl_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0);
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &save->mask);
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &save->cancel);
}

void rcl_caller_leave(const struct rcl_caller_save *save) {
    pthread_setcancelstate(save->cancel, NULL);
    pthread_sigmask(SIG_SETMASK, &save->mask, NULL);
}

/* Each reads or writes the block the thread pointer designates when it is called: not inlined,
 * so that no address of a thread-local variable computed before the switch is reused after it
 * (compilers treat the thread pointer as constant within a function). */
static __attribute__((noinline)) void mark(bool on) {
    rcl_as_caller = on;
    __asm__ __volatile__("" ::: "memory");
}
static __attribute__((noinline)) int errno_here(void) {
    return errno;
}
static __attribute__((noinline)) void set_errno_here(int err) {
    errno = err;
}

/* This function itself touches no thread-local variable, and has no stack protector (whose
 * canary lives in the thread control block). */
__attribute__((noinline, no_stack_protector)) int rcl_run_as_caller(rcl_cs_fn fn, void *ctx,
                                                                    uintptr_t tp, int *err) {
    uintptr_t own = rcl_tp_get();
    rcl_tp_set(tp);
    mark(true);
    set_errno_here(*err); /* the client's errno when it posted (its own value, unchanged) */
    int r = fn(ctx);
    *err = errno_here();
    mark(false);
    rcl_tp_set(own);
    return r;
}

/* The program's gettid(), syscall() and prctl() (rcl-cc's links, above). Each reads rcl_as_caller
 * itself: on a server running a section as its caller that is the client's block. */
RCL_API pid_t __wrap_gettid(void) {
    if (rcl_as_caller) return rcl_caller_tid;
    return (pid_t)rcl_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

/* A direct system call's result as the C library returns it: -1 and errno on failure. */
static long c_library_result(long r) {
    if ((unsigned long)r > -4096UL) {
        errno = (int)-r;
        return -1;
    }
    return r;
}

RCL_API long __wrap_syscall(long nr, ...) {
    if (nr == SYS_gettid && rcl_as_caller) return rcl_caller_tid;
    /* As the C library's syscall: six arguments read whatever the caller passed. */
    va_list ap;
    va_start(ap, nr);
    long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
    long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
    va_end(ap);
    return c_library_result(rcl_sys6(nr, a, b, c, d, e, f));
}

/* The client's name, as the kernel's PR_GET_NAME writes it into Out: 16 bytes, the name and
 * NULs after it. */
static int caller_name(char *out) {
    char path[48] = "/proc/self/task/", digits[12];
    size_t len = strlen(path), n = 0;
    for (unsigned v = (unsigned)rcl_caller_tid; n == 0 || v; v /= 10)
        digits[n++] = (char)('0' + v % 10);
    while (n)
        path[len++] = digits[--n];
    memcpy(path + len, "/comm", sizeof "/comm");
    long fd = rcl_sys6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
    if (fd < 0) {
        errno = (int)-fd;
        return -1;
    }
    char name[17] = {0};
    long got = rcl_sys6(SYS_read, fd, (long)name, 16, 0, 0, 0);
    rcl_sys6(SYS_close, fd, 0, 0, 0, 0, 0);
    if (got < 0) {
        errno = (int)-got;
        return -1;
    }
    char *end = memchr(name, '\n', sizeof name);
    if (end) *end = '\0';
    memset(out, 0, 16);
    memcpy(out, name, strnlen(name, 15));
    return 0;
}

RCL_API int __wrap_prctl(int option, ...) {
    va_list ap;
    va_start(ap, option);
    unsigned long a = va_arg(ap, unsigned long), b = va_arg(ap, unsigned long);
    unsigned long c = va_arg(ap, unsigned long), d = va_arg(ap, unsigned long);
    va_end(ap);
    if (option == PR_GET_NAME && rcl_as_caller) return caller_name((char *)a);
    return (int)c_library_result(
        rcl_sys6(SYS_prctl, option, (long)a, (long)b, (long)c, (long)d, 0));
}
