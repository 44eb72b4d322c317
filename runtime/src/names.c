/*
 * names.c - names for a lock in reports (RCL_STATS), the way rcl-prof names them
 * (profiler.md, "Lock identity"): by the symbol of the global or static object that holds the
 * mutex, else by the first call site that took it, else by its address.
 *
 * In-process, with dladdr, so that RCL_STATS needs no tool at exit: dladdr only sees dynamic
 * symbols. A global in a shared library is one; in an executable it is one only when the program
 * is linked with -rdynamic (or --export-dynamic-symbol), and a file-scope `static` never is:
 * those locks, and locks in the heap, are named by their first call site. A call site is
 * `function+0xOFF` when its function is a dynamic symbol, else `module+0xOFF`, OFF being the
 * address `addr2line -e module` takes (a PIE's or a library's offset from its load address, an
 * ET_EXEC's address), of the call instruction (return address - 1, as rcl-prof reports it).
 */
#include "internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

/* The name as it goes into a report: printable, JSON-safe (a module's file name may hold
 * anything: '"', '\\' and control characters become '?'). */
static void clean(char *s) {
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) *s = '?';
}

/* "sym" (the mutex at the object's start, as rcl-prof names it: an array's first element too),
 * "sym[i]" (a mutex at a multiple of a mutex's size further in: an array of mutexes) or
 * "sym+off" (a mutex inside a larger object). The symbol's size only bounds the object:
 * AddressSanitizer pads it with the global's redzone. False when addr is in no dynamic object
 * symbol. */
static bool symbol_name(const void *addr, char *buf, size_t len) {
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !info.dli_sname ||
        !info.dli_saddr || !sym)
        return false;
    size_t off = (size_t)((const char *)addr - (const char *)info.dli_saddr);
    size_t size = (size_t)sym->st_size, m = sizeof(pthread_mutex_t);
    if ((const char *)addr < (const char *)info.dli_saddr || (size ? off >= size : off != 0))
        return false; /* the nearest symbol below, not one that holds addr */
    if (off == 0)
        snprintf(buf, len, "%s", info.dli_sname);
    else if (off % m == 0)
        snprintf(buf, len, "%s[%zu]", info.dli_sname, off / m);
    else
        snprintf(buf, len, "%s+%zu", info.dli_sname, off);
    return true;
}

void rcl_site_name(const void *site, char *buf, size_t len) {
    Dl_info info;
    const char *pc = (const char *)site - 1; /* the call instruction */
    if (!dladdr(pc, &info) || !info.dli_fbase) {
        snprintf(buf, len, "%p", (const void *)pc);
    } else if (info.dli_sname && info.dli_saddr) {
        snprintf(buf, len, "%s+0x%zx", info.dli_sname, (size_t)(pc - (const char *)info.dli_saddr));
    } else {
        const char *file = info.dli_fname && *info.dli_fname ? info.dli_fname : "?";
        const char *base = strrchr(file, '/');
        /* the ELF header is mapped at the load address: ET_EXEC is not relocated */
        bool exec = ((const ElfW(Ehdr) *)info.dli_fbase)->e_type == ET_EXEC;
        size_t off = exec ? (size_t)pc : (size_t)(pc - (const char *)info.dli_fbase);
        snprintf(buf, len, "%s+0x%zx", base ? base + 1 : file, off);
    }
    clean(buf);
}

const char *rcl_lock_name(const void *lock, const void *first_site, char *buf, size_t len) {
    const char *identity = "symbol";
    if (symbol_name(lock, buf, len)) {
    } else if (first_site) {
        size_t n = (size_t)snprintf(buf, len, "site:");
        if (n < len) rcl_site_name(first_site, buf + n, len - n);
        identity = "site";
    } else {
        snprintf(buf, len, "%p", lock);
        identity = "address";
    }
    clean(buf);
    return identity;
}
