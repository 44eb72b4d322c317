/* Uses two converted shared libraries, linked (default) or loaded with dlopen(RTLD_LOCAL)
   (-DUSE_DLOPEN, the libraries' paths as arguments), then counts librcl's server threads:
   one runtime per process means each server's thread name (rcl-server-N) appears once. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef USE_DLOPEN
#include <dlfcn.h>
#else
int a_bump(void);
int b_bump(void);
#endif

static int bump(const char *lib, const char *fn)
{
#ifdef USE_DLOPEN
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    int (*f)(void) = h ? (int (*)(void))dlsym(h, fn) : NULL;
    if (!f) {
        fprintf(stderr, "cannot load %s from %s: %s\n", fn, lib, dlerror());
        exit(2);
    }
    return f();
#else
    (void)lib;
    return strcmp(fn, "a_bump") == 0 ? a_bump() : b_bump();
#endif
}

int main(int argc, char **argv)
{
    char names[64][16];
    int servers = 0, duplicates = 0;
    int a = bump(argc > 1 ? argv[1] : NULL, "a_bump");
    int b = bump(argc > 2 ? argv[2] : NULL, "b_bump");
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], name[16] = "";
        FILE *f;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        if (!(f = fopen(path, "r"))) continue;
        if (fgets(name, sizeof name, f)) name[strcspn(name, "\n")] = '\0';
        fclose(f);
        /* A server's own thread: rcl-server-N (not N.M or Nw, its helpers). */
        if (strncmp(name, "rcl-server-", 11) || strspn(name + 11, "0123456789") != strlen(name + 11))
            continue;
        for (int i = 0; i < servers && i < 64; i++)
            duplicates += strcmp(names[i], name) == 0;
        if (servers < 64) strcpy(names[servers], name);
        servers++;
    }
    if (d) closedir(d);
    printf("bumps %d %d; server threads %d, duplicate names %d\n", a, b, servers, duplicates);
    return 0;
}
