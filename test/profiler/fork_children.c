// fork: while a second thread keeps locking `busy`, the main thread forks 30 children that
// lock `child_lock` and leave with _exit (and one with exit). The children get their own
// profiles (reported apart), never the parent's numbers; the parent's report has exactly its
// own acquisitions; nothing deadlocks.
// RUN: %cc %s -o %t
// RUN: %rcl-prof -o %t.txt --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.txt
// CHECK: locks 2 untracked=0 threads=2 ended_by=exit exit=0
// CHECK-DAG: lock {{[0-9]}} parent_lock identity=symbol acq=30 contended=0
// CHECK-DAG: lock {{[0-9]}} busy identity=symbol acq={{[1-9][0-9]*}}
// CHECK-NOT: child_lock
// REPORT: exit status 0; 30 other process(es) profiled apart
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILDREN 30

pthread_mutex_t parent_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int stop;
static long work;

static void *spinner(void *arg) {
    (void)arg;
    while (!atomic_load(&stop)) {
        pthread_mutex_lock(&busy);
        work++;
        pthread_mutex_unlock(&busy);
    }
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, spinner, NULL);
    for (int i = 0; i < CHILDREN; i++) {
        pthread_mutex_lock(&parent_lock);
        pid_t pid = fork();
        pthread_mutex_unlock(&parent_lock);
        if (pid == 0) {
            for (int k = 0; k < 5; k++) {
                pthread_mutex_lock(&child_lock);
                pthread_mutex_unlock(&child_lock);
            }
            if (i == 0)
                exit(0);
            _exit(0);
        }
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
            return 1;
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    return 0;
}
