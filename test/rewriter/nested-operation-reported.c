// A mutex operation of another lock inside a converted section that is no section of its own (a
// trylock pair) runs on the server with the body and is reported as kept inside the converted
// section, like a nested pair; it was left out of the report.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl
#include <pthread.h>

static pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER, inner = PTHREAD_MUTEX_INITIALIZER;
static int a, b;

void both(void)
{
    pthread_mutex_lock(&outer);
    a++;
    if (pthread_mutex_trylock(&inner) == 0) {
        b++;
        pthread_mutex_unlock(&inner);
    }
    pthread_mutex_unlock(&outer);
}
// CHECK-NOT: cannot convert
// CHECK: rcl: summary: 1 converted, 0 refused
// CHECK: lock 'inner': 0 converted, 0 refused, 1 kept inside a converted section
// CHECK: lock 'outer': 1 converted, 0 refused

int main(void)
{
    both();
    return a + b == 2 ? 0 : 1;
}
