/*
 * prof_hooks.h - how librcl reports delegated critical sections to a profiler.
 *
 * When the runtime starts, it looks up these two symbols with dlsym(RTLD_DEFAULT, ...). A
 * profiler preloaded into the process (librcl-prof.so) defines them; in any other process
 * they are absent and the runtime's fast path does not call anything.
 *
 * rcl_prof_cs_begin is called on the client thread when rcl_delegate is entered, before the
 * request is posted (delegate mode) or before the mutex is locked (local mode).
 * rcl_prof_cs_end is called on the client thread after the critical section's result is back.
 * call_site is the return address of the rcl_delegate call (symbolise it to file:line).
 * server_cs_ns is the time the server spent running the critical section itself (delegate
 * mode); it is 0 in local mode, where the mutex is taken with pthread_mutex_lock in the
 * caller between the two hooks (a profiler that interposes pthread_mutex_lock sees that too
 * and can attribute it to call_site).
 * rcl_prof_server_thread (optional) is called by each of the runtime's own threads (servicing
 * threads and blocking detectors) when it starts: they are not the program's threads, and a
 * profiler should not count them (or their trylocks of the locks they serve) as such. The
 * threads are also named "rcl-server-<n>...", for profilers that look at names.
 */
#ifndef RCL_PROF_HOOKS_H
#define RCL_PROF_HOOKS_H

#include <pthread.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*rcl_prof_cs_begin_fn)(pthread_mutex_t *lock, const void *call_site);
typedef void (*rcl_prof_cs_end_fn)(pthread_mutex_t *lock, const void *call_site,
                                   uint64_t server_cs_ns);

typedef void (*rcl_prof_server_thread_fn)(void);

#define RCL_PROF_CS_BEGIN_SYMBOL      "rcl_prof_cs_begin"
#define RCL_PROF_CS_END_SYMBOL        "rcl_prof_cs_end"
#define RCL_PROF_SERVER_THREAD_SYMBOL "rcl_prof_server_thread"

#ifdef __cplusplus
}
#endif

#endif /* RCL_PROF_HOOKS_H */
