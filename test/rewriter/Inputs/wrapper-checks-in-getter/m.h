/* Tor's mutex wrappers (src/lib/lock/compat_mutex_pthreads.c, src/lib/err/torerr.h), cut down. */
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
/* Tor's compat_compiler.h: under GNU C, a statement expression cast to void. */
#define STMT_BEGIN (void) ({
#define STMT_END })
void tor_raw_abort_(void) __attribute__((noreturn));
void tor_raw_assertion_failed_msg_(const char *file, int line, const char *expr, const char *msg);
#define raw_assert(expr) STMT_BEGIN \
    if (!(expr)) { \
      tor_raw_assertion_failed_msg_(__FILE__, __LINE__, #expr, NULL); \
      tor_raw_abort_(); \
    } \
  STMT_END
#define raw_assert_unreached_msg(msg) STMT_BEGIN \
    tor_raw_assertion_failed_msg_(__FILE__, __LINE__, "0", (msg)); \
    tor_raw_abort_(); \
  STMT_END
typedef struct tor_mutex_t { pthread_mutex_t mutex; } tor_mutex_t;
void tor_mutex_acquire(tor_mutex_t *m);
void tor_mutex_release(tor_mutex_t *m);
