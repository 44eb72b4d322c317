/* No lock here, and not called from a section directly: reached through set_title. */
#include <sys/prctl.h>

void apply_name(const char *t)
{
    prctl(PR_SET_NAME, t);
}
