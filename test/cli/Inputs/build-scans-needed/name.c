/* No lock here, and not called from a section directly: reached through set_title. Renaming
   the calling thread decides its callers' refusal, so log_name's file need not be read. */
#include <sys/prctl.h>

void log_name(const char *t);

void apply_name(const char *t)
{
    prctl(PR_SET_NAME, t);
    log_name(t);
}
