// Contended vs. uncontended counts for a barrier-synchronised pair. Each round the holder
// takes `shared` before the barrier; after it the other thread fails one trylock, then blocks
// in pthread_mutex_lock, and the holder releases only once the kernel shows that thread asleep,
// so exactly one acquisition per round is contended, whatever the scheduling. `own` is
// locked by one thread only: never contended.
// RUN: %cc %s -o %t
// RUN: %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// CHECK-DAG: lock {{[0-9]}} shared identity=symbol acq=40 contended=20 tryfail=20 timeouts=0
// CHECK-DAG: lock {{[0-9]}} own identity=symbol acq=20 contended=0 tryfail=0 timeouts=0
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROUNDS 20

pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t own = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start, done;
static _Atomic pid_t waiter_tid;

/* Whether thread tid is asleep (state S): the only place it can sleep is the lock. */
static int asleep(pid_t tid) {
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] == 'S';
}

static void *waiter(void *arg) {
    (void)arg;
    atomic_store(&waiter_tid, (pid_t)syscall(SYS_gettid));
    for (int r = 0; r < ROUNDS; r++) {
        pthread_barrier_wait(&start);
        if (pthread_mutex_trylock(&shared) == 0) /* never: the holder has it */
            return (void *)1;
        pthread_mutex_lock(&shared); // CHECK-DAG: site shared forced_contention.c:[[@LINE]] lock 20
        pthread_mutex_unlock(&shared);
        pthread_barrier_wait(&done);
    }
    return NULL;
}

int main(void) {
    pthread_barrier_init(&start, NULL, 2);
    pthread_barrier_init(&done, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    for (int r = 0; r < ROUNDS; r++) {
        pthread_mutex_lock(&own);
        pthread_mutex_lock(&shared); // CHECK-DAG: site shared forced_contention.c:[[@LINE]] lock 20
        pthread_barrier_wait(&start);
        while (atomic_load(&waiter_tid) == 0 || !asleep(atomic_load(&waiter_tid)))
            usleep(200);
        pthread_mutex_unlock(&shared);
        pthread_mutex_unlock(&own);
        pthread_barrier_wait(&done);
    }
    void *ret;
    pthread_join(t, &ret);
    puts(ret ? "trylock succeeded while held" : "ok");
    return ret != NULL;
}
