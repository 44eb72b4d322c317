/* Callgrind driver for bench/callgrind/server-ir.sh: one thread keeps K mailboxes of server 0
 * full (N requests), or, with a third argument, leaves them empty for 0.3 s (idle passes).
 * Prints what the server served and how many idle passes it made. */
#include "internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sched.h>
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long counter;
static int empty_cs(void *arg) {
    (void)arg;
    counter++;
    return 0;
}
int main(int argc, char **argv) {
    int k = argc > 1 ? atoi(argv[1]) : 32;
    long n = argc > 2 ? atol(argv[2]) : 100000;
    setenv("RCL_MODE", "delegate", 1);
    rcl_server_count();
    struct rcl_mailbox *mb[1024];
    for (int i = 0; i < k; i++)
        mb[i] = rcl__mailbox_open(0);
    struct rcl_server *s = rcl__server(0);
    uint64_t served0 = atomic_load(&s->served), idle0 = atomic_load(&s->idle_passes);
    long done = 0;
    if (argc > 3) { /* idle mode: the server scans k empty mailboxes for a while */
        struct timespec ts = {0, 300000000};
        nanosleep(&ts, NULL);
        printf("served %lu idle %lu\n", (unsigned long)(atomic_load(&s->served) - served0),
               (unsigned long)(atomic_load(&s->idle_passes) - idle0));
        return 0;
    }
    for (int i = 0; i < k; i++)
        rcl__mailbox_post(mb[i], &lock, empty_cs, NULL);
    while (done < n) {
        long before = done;
        for (int i = 0; i < k; i++)
            if (rcl__mailbox_answered(mb[i])) {
                done++;
                rcl__mailbox_post(mb[i], &lock, empty_cs, NULL);
            }
        if (done == before) sched_yield();
    }
    for (int i = 0; i < k; i++)
        while (!rcl__mailbox_answered(mb[i]))
            rcl_cpu_relax();
    printf("served %lu idle %lu counter %lu\n", (unsigned long)(atomic_load(&s->served) - served0),
           (unsigned long)(atomic_load(&s->idle_passes) - idle0), counter);
    return 0;
}
