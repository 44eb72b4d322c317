// rcl_delegate_ctx: a context of exactly RCL_INLINE_CTX_MAX bytes travels in the request line
// (the section sees a copy, byte for byte), one byte more is passed by pointer (the section
// sees the caller's object), size 0 is a pointer too; local mode always passes the pointer.
// A copy one byte short, or an inline copy of the larger context (which would run into the
// mailbox's second line), fails here.
// RUN: %cc %s -o %t %rcl_libs
// RUN: %t | FileCheck %s --check-prefix=DELEGATE
// RUN: env RCL_MODE=local %t | FileCheck %s --check-prefix=LOCAL
// RUN: env RCL_MODE=adaptive RCL_ADAPTIVE_FLIP=1 %t | FileCheck %s --check-prefix=ADAPTIVE
// DELEGATE: limit 32: copied, intact; limit+1: by pointer, intact; size 0: by pointer; 3 threads ok
// LOCAL: limit 32: by pointer, intact; limit+1: by pointer, intact; size 0: by pointer; 3 threads
// ok ADAPTIVE: limit+1: by pointer, intact; size 0: by pointer; 3 threads ok
#include "Inputs/harness.h"
#include <rcl/rcl.h>
#include <stdint.h>
#include <string.h>

_Static_assert(RCL_INLINE_CTX_MAX == 32, "this test's expectations name the limit");

struct at_limit {
    unsigned char b[RCL_INLINE_CTX_MAX];
};
struct over_limit {
    unsigned char b[RCL_INLINE_CTX_MAX + 1];
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static const void *caller_obj; /* written before each call, read by the section */
static long sum;               /* protected by m */

/* returns 1 when the section saw the caller's object itself, 0 for a copy; -1 if a byte
 * differs from the pattern the caller wrote */
static int check_bytes(const unsigned char *b, size_t n, unsigned char seed) {
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(seed + 7 * i)) return -1;
    sum += b[n - 1];
    return (const void *)b == caller_obj;
}
static int cs_limit(void *arg) {
    const struct at_limit *c = arg;
    return check_bytes(c->b, sizeof c->b, c->b[0]);
}
static int cs_over(void *arg) {
    const struct over_limit *c = arg;
    return check_bytes(c->b, sizeof c->b, c->b[0]);
}

static void fill(unsigned char *b, size_t n, unsigned char seed) {
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed + 7 * i);
}

static void *thread(void *arg) {
    long id = (long)arg;
    for (int k = 0; k < 2000; k++) {
        /* the objects are on this thread's stack; the section sees each exactly */
        struct at_limit a;
        struct over_limit o;
        fill(a.b, sizeof a.b, (unsigned char)(id * 31 + k));
        fill(o.b, sizeof o.b, (unsigned char)(id * 17 + k));
        CHECK(rcl_delegate_ctx(&m, cs_limit, &a, sizeof a) >= 0);
        CHECK(rcl_delegate_ctx(&m, cs_over, &o, sizeof o) >= 0);
    }
    return NULL;
}

int main(void) {
    struct at_limit a;
    struct over_limit o;
    fill(a.b, sizeof a.b, 3);
    fill(o.b, sizeof o.b, 5);
    enum rcl_mode mode = rcl_mode();
    caller_obj = &a;
    int ra = rcl_delegate_ctx(&m, cs_limit, &a, sizeof a);
    caller_obj = &o;
    int ro = rcl_delegate_ctx(&m, cs_over, &o, sizeof o);
    caller_obj = &a;
    int r0 = rcl_delegate_ctx(&m, cs_limit, &a, 0);
    CHECK(ra >= 0 && ro >= 0 && r0 >= 0);
    if (mode != RCL_MODE_ADAPTIVE) /* adaptive: the path of one call is the policy's */
        printf("limit %d: %s, intact; ", RCL_INLINE_CTX_MAX, ra ? "by pointer" : "copied");
    printf("limit+1: %s, intact; size 0: %s; ", ro ? "by pointer" : "copied",
           r0 ? "by pointer" : "copied");
    caller_obj = NULL; /* the threads only check the bytes */
    run_threads(3, thread);
    printf("3 threads ok\n");
    return 0;
}
