// A file that defines the program's malloc (an allocator with a lock): librcl allocates while it
// starts, so a section of the allocator must never start it. Its sections call
// rcl_delegate_allocator, which never does, and the file starts the runtime from a constructor,
// before main, outside the allocator (runtime/own_allocator.c runs such a program;
// cli/build-allocator.test: the other files of such a program too).
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s < %t.c
// RUN: %cc -c %t.c -o %t.o
#include <pthread.h>
#include <stddef.h>

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static _Alignas(16) unsigned char pool[1 << 20];
static size_t used;

// CHECK: #include <rcl/rcl.h> /* added by rcl-rewrite */
// CHECK: /* added by rcl-rewrite: this file is part of the program's memory allocator (this file defines 'malloc' (line [[# @LINE+3]])). librcl allocates while it starts, so its sections never start it (rcl_delegate_allocator); this starts it before main, outside the allocator. */
// CHECK-NEXT: __attribute__((constructor(101))) static void rcl__start_for_allocator(void) { rcl_start(); }
// CHECK: rcl_delegate_allocator(&pool_lock, rcl_cs_malloc_{{[0-9]+}}, &rcl_ctx, sizeof rcl_ctx)
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
// Without every file's facts (rcl build), the program's other files cannot know: a note says so.
// ERR: allocator-sections.c: rcl: note: this file defines 'malloc' (line [[# @LINE-12]]), the program's memory allocator: its sections never start librcl, which allocates; the program's other files know that only from every file's facts (build it with `rcl build -- <build command>`; docs/runtime.md, "The program's allocator")
// ERR: rcl: summary: 1 converted, 0 refused
