// Posts cost the client no fence because a parking server issues membarrier(2) for both sides
// (server.c, "Parking an idle server"). Should that call ever fail after start-up, the server
// says so once, clients fence again, and every later park is bounded, so no post is lost.
// Here a seccomp filter (all threads, installed after the runtime started with light posts)
// makes membarrier(2) fail with EPERM; then one client posts around the server's parking, as
// in post_races_park.c. Without the fallback (the barrier's result ignored) clients keep
// posting without a fence against a barrier that no longer runs: the warning and "light posts
// now 0" are missing (6 of 6 runs), and a lost post, which the watchdog would catch, is possible.
// REQUIRES: membarrier
// RUN: %cc %rcl_internal %s -o %t %rcl_libs
// RUN: env RCL_SERVER_SPIN_NS=0 %t 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// CHECK: membarrier refused: 20000 calls, none lost; light posts now 0
// WARN: rcl: server 0: membarrier(2) failed: Operation not permitted; posts fence from now on
// WARN-NOT: membarrier(2) failed
#include "Inputs/harness.h"
#include "internal.h"
#include "Inputs/post_around_parking.h"
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

/* membarrier(2) -> EPERM, every other system call allowed, in every thread of the process. */
static int refuse_membarrier(void) {
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_membarrier, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
}

int main(void) {
    parking_watchdog_start();
    post_around_parking(1, 7); /* the runtime starts, with light posts (REQUIRES) */
    CHECK(rcl_post_light);
    CHECK(refuse_membarrier() == 0);
    post_around_parking(19999, 7);
    CHECK(parking_calls == 20000);
    printf("membarrier refused: %ld calls, none lost; light posts now %d\n", parking_calls,
           (int)rcl_post_light);
    return 0;
}
