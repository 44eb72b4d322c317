/* A program outside the tree that uses an installed librcl. */
#include <pthread.h>
#include <rcl/rcl.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n;
static int inc(void *arg) {
    (void)arg;
    return (int)++n;
}
int main(void) {
    for (int i = 0; i < 1000; i++)
        rcl_delegate(&m, inc, NULL);
    printf("consumer: n=%ld, %d server(s)\n", n, rcl_server_count());
    return n != 1000;
}
