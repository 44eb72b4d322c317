// Case 2: break, continue and goto that leave the section after an unlock become exit
// numbers; the jump itself is re-emitted after the call (an if chain, so `break` still
// leaves the loop).
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int stock[8];

// CHECK: static RCL_SECTION_INLINE int rcl_cs_scan_1(void *rcl_arg)
// CHECK:     if (stock[i] == 0) {
// CHECK-NEXT:     return 1;
// CHECK:         (*rcl_ctx->found) = i;
// CHECK-NEXT:    return 2;
// CHECK:         return 3;
// CHECK:     stock[i]--;
// CHECK-NEXT: return 0;
// CHECK: struct rcl_cs_scan_1_ctx rcl_ctx = { .i = i, .found = &found };
// CHECK-NEXT: int rcl_exit = rcl_delegate_ctx(&m, rcl_cs_scan_1, &rcl_ctx, sizeof rcl_ctx);
// CHECK-NEXT: if (rcl_exit == 1) {
// CHECK-NEXT:     continue;
// CHECK-NEXT: } else if (rcl_exit == 2) {
// CHECK-NEXT:     break;
// CHECK-NEXT: } else if (rcl_exit == 3) {
// CHECK-NEXT:     goto fail;
// CHECK-NEXT: }
static int scan(int n)
{
    int found = -1;
    for (int i = 0; i < n; i++) {
        pthread_mutex_lock(&m);
        if (stock[i] == 0) {
            pthread_mutex_unlock(&m);
            continue;
        }
        if (stock[i] > 5) {
            found = i;
            pthread_mutex_unlock(&m);
            break;
        }
        if (stock[i] < 0) {
            pthread_mutex_unlock(&m);
            goto fail;
        }
        stock[i]--;
        pthread_mutex_unlock(&m);
    }
    return found;
fail:
    return -2;
}

int main(void)
{
    for (int i = 0; i < 8; i++)
        stock[i] = i;
    printf("%d\n", scan(8));
    stock[3] = -1;
    printf("%d\n", scan(8));
    for (int i = 0; i < 8; i++)
        printf("%d ", stock[i]);
    printf("\n");
    return 0;
}
