// gettid and syscall linked through librcl's wraps, outside any section: the kernel's answers.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
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
    return 0;
}
