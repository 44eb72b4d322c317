/* PulseAudio's mutex wrappers (src/pulsecore/mutex-posix.c, macro.h), cut down: pa_assert's
 * message names the function it fails in, through __PRETTY_FUNCTION__. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define PA_UNLIKELY(x) (__builtin_expect(!!(x), 0))
#define PA_PRETTY_FUNCTION __PRETTY_FUNCTION__
#define pa_assert_se(expr)                                                                    \
    do {                                                                                      \
        if (PA_UNLIKELY(!(expr))) {                                                           \
            fprintf(stderr, "Assertion '%s' failed at %s:%u, function %s(). Aborting.\n",   \
                    #expr, __FILE__, __LINE__, PA_PRETTY_FUNCTION);                           \
            abort();                                                                          \
        }                                                                                     \
    } while (0)
#define pa_assert(expr) pa_assert_se(expr)
#define pa_assert_not_reached()                                                               \
    do {                                                                                      \
        fprintf(stderr, "Code should not be reached at %s:%u, function %s(). Aborting.\n",  \
                __FILE__, __LINE__, __func__);                                                \
        abort();                                                                              \
    } while (0)
typedef struct pa_mutex { pthread_mutex_t mutex; } pa_mutex;
void pa_mutex_lock(pa_mutex *m);
void pa_mutex_unlock(pa_mutex *m);
