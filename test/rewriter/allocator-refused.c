// A file that defines the program's malloc (an allocator with a lock): librcl allocates on a
// delegation's way, so its sections would enter the allocator again inside its own section.
// They are refused with the reason (build-allocator-refused.test: the other files of such a
// program too).
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: not grep -q "rcl_delegate[_(]" %t.c
#include <pthread.h>
#include <stddef.h>

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static _Alignas(16) unsigned char pool[1 << 20];
static size_t used;

void *malloc(size_t n)
{
    void *p = NULL;
    pthread_mutex_lock(&pool_lock);
    if (used + n <= sizeof pool) {
        p = pool + used;
        used += (n + 15) & ~(size_t)15;
    }
    pthread_mutex_unlock(&pool_lock);
    return p;
}
// ERR: allocator-refused.c:[[# @LINE-8]]:5: rcl: cannot convert critical section: the section is part of the program's memory allocator (this file defines 'malloc' (line [[# @LINE-11]])): librcl allocates memory on a delegation's way (its start, a thread's first section), which would enter the allocator again inside its own section; left as is
// ERR: rcl: summary: 0 converted, 1 refused
