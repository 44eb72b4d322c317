// gettid, syscall and prctl linked through librcl's wraps, outside any section: the kernel's
// answers.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
    pid_t a = gettid();
    long b = syscall(SYS_gettid);
    pid_t c = (pid_t)syscall(SYS_getpid) == getpid() ? a : -1;
    errno = 0;
    long bad = syscall(SYS_close, -1);
    printf("gettid=syscall=kernel%s errno=%s\n", a == b && a == c && a > 0 ? "" : " (differ)",
           bad == -1 && errno == EBADF ? "EBADF" : "?");
    char name[17] = {0};
    prctl(PR_SET_NAME, (unsigned long)"wrapped-main", 0, 0, 0);
    int got = prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0);
    errno = 0;
    int wrong = prctl(-1, 0, 0, 0, 0);
    printf("prctl name=%s got=%d wrong=%d errno=%s\n", name, got, wrong,
           errno == EINVAL ? "EINVAL" : "?");
    return 0;
}
