// rcl-cc compiles the rewritten text with #line directives: diagnostics inside the
// outlined body, in a tail moved to the caller and after the section keep their original
// lines, and __FILE__/__LINE__ are those of the source.
// REQUIRES: tools
// RUN: %rcl-cc -std=gnu11 -Wall -pthread -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: nm %t.o | FileCheck %s --check-prefix=NM
// RUN: %rcl-cc %t.o -o %t && %t | FileCheck %s --check-prefix=OUT
// NM: rcl_cs_f_1
// OUT: 2 -1
// OUT-NEXT: rcl-cc-line-directives.c:41
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;

int f(int k)
{
    int r;
    pthread_mutex_lock(&m);
    if (k < 0) {
        pthread_mutex_unlock(&m);
        int unused_tail;
        // CHECK-DAG: rcl-cc-line-directives.c:[[@LINE-1]]:13: warning: unused variable 'unused_tail'
        return -1;
    }
    int unused_body;
    // CHECK-DAG: rcl-cc-line-directives.c:[[@LINE-1]]:9: warning: unused variable 'unused_body'
    r = v += k;
    pthread_mutex_unlock(&m);
    int unused_after;
    // CHECK-DAG: rcl-cc-line-directives.c:[[@LINE-1]]:9: warning: unused variable 'unused_after'
    return r;
}

int main(void)
{
    int a = f(2);
    int b = f(-1);
    printf("%d %d\n", a, b);
    printf("%s:%d\n", __FILE__, __LINE__);
    return 0;
}
