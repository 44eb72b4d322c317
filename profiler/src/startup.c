/*
 * startup.c - the preload's start-up: the real pthread functions, the tables, the thread
 * accounting, and the triggers of the raw dump.
 *
 * Start-up runs once, from the library constructor or from the first wrapper the program calls
 * before it (a constructor of another library may lock a mutex first). It resolves the real
 * functions the wrappers forward to, maps the lock table and the thread caches, starts the
 * thread accounting, then arms the dump (dump.c) and registers what triggers it: exit() (an
 * atexit handler registered here, so it runs after the program's own handlers), the library
 * destructor, and the fatal signals whose disposition was the default when the program started
 * (the handler dumps, then the signal is re-raised with its default action, so the process
 * still dies of it and its parent sees that). _exit/_Exit trigger it from their wrappers.
 *
 * Fork: the child starts empty tables and a new thread epoch (pthread_atfork child handler).
 * Nothing in the profiler holds a lock, so fork cannot deadlock on it.
 *
 * glibc 2.34+ has the pthread symbols in libc.so.6. pthread_cond_wait/timedwait exist in two
 * versions; dlsym would return the old (GLIBC_2.2.5, pre-2.3.2 condvar) one to RTLD_NEXT
 * lookups from an unversioned object, so they are looked up with dlvsym(..., "GLIBC_2.3.2").
 */
#include "prof.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

PROF_HIDDEN struct real_fns prof_real;
PROF_HIDDEN _Atomic int prof_ready;
PROF_HIDDEN uint64_t prof_start_ticks;
PROF_HIDDEN uint64_t prof_start_ns;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

#define RESOLVE(field, name) prof_real.field = (__typeof__(prof_real.field))dlsym(RTLD_NEXT, name)

static void resolve_real_functions(void) {
    RESOLVE(mutex_lock, "pthread_mutex_lock");
    RESOLVE(mutex_trylock, "pthread_mutex_trylock");
    RESOLVE(mutex_timedlock, "pthread_mutex_timedlock");
    RESOLVE(mutex_unlock, "pthread_mutex_unlock");
    RESOLVE(mutex_init, "pthread_mutex_init");
    RESOLVE(mutex_destroy, "pthread_mutex_destroy");
    RESOLVE(create, "pthread_create");
    RESOLVE(underscore_exit, "_exit");
    RESOLVE(underscore_Exit, "_Exit");
    prof_real.cond_wait =
        (__typeof__(prof_real.cond_wait))dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2");
    prof_real.cond_timedwait = (__typeof__(prof_real.cond_timedwait))dlvsym(
        RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
    if (!prof_real.cond_wait) /* an architecture whose first glibc already had the new ABI */
        RESOLVE(cond_wait, "pthread_cond_wait");
    if (!prof_real.cond_timedwait) RESOLVE(cond_timedwait, "pthread_cond_timedwait");
}

/* signals whose default action ends the process; SIGUSR1/2 and SIGALRM are left alone, programs
 * often wait for those with sigwait and look at their disposition */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE,  SIGILL, SIGABRT, SIGSYS,  SIGTRAP,
                                    SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGPIPE, SIGXCPU, SIGXFSZ};

static void on_fatal_signal(int sig) {
    int saved = errno;
    prof_dump(DUMP_SIGNAL, sig);
    errno = saved;
    /* SA_RESETHAND restored the default action; the signal is blocked until we return, so
     * it is delivered then (a fault re-executes the faulting instruction instead) */
    raise(sig);
}

static void install_signal_handlers(void) {
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue; /* the program (or its parent, for ignored signals) chose already */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_RESTART;
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

static void at_exit(void) {
    prof_dump(DUMP_EXIT, 0);
}

__attribute__((destructor)) static void at_unload(void) {
    prof_dump(DUMP_DESTRUCTOR, 0);
}

static void after_fork_in_child(void) {
    prof_threads_after_fork();
    prof_table_reset_after_fork();
    prof_tcache_reset_after_fork();
    prof_dump_after_fork();
}

static void init_once_fn(void) {
    resolve_real_functions();
    prof_start_ticks = prof_ticks();
    prof_start_ns = prof_now_ns();
    if (prof_table_init() != 0)
        return;         /* no memory for the tables: the wrappers just pass calls through */
    prof_tcache_init(); /* without caches, threads update the records directly */
    prof_threads_init();
    prof_dump_arm();
    pthread_atfork(NULL, NULL, after_fork_in_child);
    atexit(at_exit);
    install_signal_handlers();
    atomic_store_explicit(&prof_ready, 1, memory_order_release); /* pairs: ready() */
}

void prof_init(void) {
    pthread_once(&init_once, init_once_fn);
}

__attribute__((constructor)) static void at_load(void) {
    prof_init();
}
