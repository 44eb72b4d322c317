/* A stand-in for librcl-prof.so that writes a dump rcl-prof cannot read. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void write_bad_dump(void) {
    const char *dir = getenv("RCL_PROF_RAW_DIR");
    char path[4096];
    if (!dir) return;
    snprintf(path, sizeof path, "%s/rcl-prof.%d.raw", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("not a dump\n", f);
        fclose(f);
    }
}
