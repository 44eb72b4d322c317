// The default mode is adaptive: with RCL_MODE unset (or malformed) a converted lock that runs
// alone starts local, its sections run in the caller; RCL_MODE=delegate and local force either
// side. (The lit suites set RCL_MODE=delegate for every other test: see test/lit.cfg.py.)
// RUN: %cc %s -o %t %rcl_libs
// RUN: env -u RCL_MODE %t | FileCheck %s --check-prefix=ADAPTIVE
// RUN: env RCL_MODE=bogus %t 2>%t.err | FileCheck %s --check-prefix=ADAPTIVE
// RUN: FileCheck %s --check-prefix=BOGUS < %t.err
// RUN: env RCL_MODE=delegate %t | FileCheck %s --check-prefix=DELEGATE
// RUN: env RCL_MODE=local %t | FileCheck %s --check-prefix=LOCAL
// ADAPTIVE: mode=adaptive first call on a server: 0
// BOGUS: rcl: RCL_MODE=bogus: expected 'adaptive', 'delegate' or 'local'; using adaptive
// DELEGATE: mode=delegate first call on a server: 1
// LOCAL: mode=local first call on a server: 0
#include "Inputs/harness.h"
#include <rcl/rcl.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int where(void *arg) {
    (void)arg;
    return rcl_on_server();
}

int main(void) {
    int on_server = rcl_delegate(&lock, where, NULL);
    enum rcl_mode m = rcl_mode();
    printf("mode=%s first call on a server: %d\n",
           m == RCL_MODE_ADAPTIVE ? "adaptive" : m == RCL_MODE_LOCAL ? "local" : "delegate",
           on_server);
    return 0;
}
