#include "m.h"
void tor_raw_abort_(void) { abort(); }
void tor_raw_assertion_failed_msg_(const char *file, int line, const char *expr, const char *msg)
{
  fprintf(stderr, "%s:%d: %s %s\n", file, line, expr, msg ? msg : "");
}
void
tor_mutex_acquire(tor_mutex_t *m)
{
  int err;
  raw_assert(m);
  err = pthread_mutex_lock(&m->mutex);
  if (__builtin_expect(err, 0)) {
    raw_assert_unreached_msg("Error locking a mutex.");
  }
}
void
tor_mutex_release(tor_mutex_t *m)
{
  int err;
  raw_assert(m);
  err = pthread_mutex_unlock(&m->mutex);
  if (__builtin_expect(err, 0)) {
    raw_assert_unreached_msg("Error unlocking a mutex.");
  }
}
