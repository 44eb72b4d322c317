// 100,000 distinct mutexes (heap, each initialised, locked twice and destroyed): every one is
// tracked, memory stays bounded and the report is written. With a table of 1,000 locks the
// rest are counted together as untracked, and the report says so.
// RUN: %cc %s -o %t
// RUN: %rcl-prof -o %t.txt --top 3 --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.txt
// RUN: %rcl-prof -o %t.small.txt --top 3 --max-locks 1000 -- %t
// RUN: FileCheck %s --check-prefix=SMALL < %t.small.txt
// CHECK: locks 1000 untracked=0 threads=1 ended_by=exit exit=0 total=100000
// CHECK: lock 1000 site:{{.*}}many_mutexes.c:[[#INIT:]]@{{[0-9]+}}/1000 identity=site acq=2
// REPORT: (99997 more locks below the top 3; --top 0 shows all)
// SMALL: (997 more locks below the top 3; --top 0 shows all)
// SMALL: 99000 locks were not tracked one by one (the lock table was full, --max-locks); together: 198000 acquisitions
#include <pthread.h>
#include <stdlib.h>

#define N 100000

int main(void) {
    pthread_mutex_t *m = calloc(N, sizeof *m);
    if (!m)
        return 1;
    for (int i = 0; i < N; i++)
        pthread_mutex_init(&m[i], NULL);
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < N; i++) {
            pthread_mutex_lock(&m[i]);
            pthread_mutex_unlock(&m[i]);
        }
    for (int i = 0; i < N; i++)
        pthread_mutex_destroy(&m[i]);
    free(m);
    return 0;
}
