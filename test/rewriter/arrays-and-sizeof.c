// Case 11: arrays keep their type through a pointer to the array, so sizeof stays right;
// a variable-length array is refused.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static unsigned long seen;

// CHECK: struct rcl_cs_fixed_1_ctx {
// CHECK-NEXT:     int (*arr)[4];
// CHECK-NEXT: };
// CHECK:     seen = sizeof((*rcl_ctx->arr)) + (*rcl_ctx->arr)[2];
// CHECK-NEXT:     (*rcl_ctx->arr)[0] = 9;
// CHECK: struct rcl_cs_fixed_1_ctx rcl_ctx = { .arr = &arr };
static int fixed(void)
{
    int arr[4] = {1, 2, 3, 4};
    pthread_mutex_lock(&m);
    seen = sizeof(arr) + arr[2];
    arr[0] = 9;
    pthread_mutex_unlock(&m);
    return arr[0];
}

static int variable(int n)
{
    int vla[n];
    vla[0] = n;
    pthread_mutex_lock(&m);
    // DIAG: arrays-and-sizeof.c:[[@LINE+1]]:13: rcl: cannot convert critical section: uses variable-length array 'vla'
    seen += vla[0] + sizeof(vla);
    pthread_mutex_unlock(&m);
    return (int)seen;
}

int main(void)
{
    printf("%d %lu\n", fixed(), seen);
    printf("%d\n", variable(3));
    return 0;
}
// DIAG: lock 'm': 1 converted, 1 refused
