// Lock identity: a global is named by its symbol (an element of a global array by symbol and
// offset); a heap mutex by the line that initialised it, or, never initialised, by the line
// that first locked it; a mutex destroyed and initialised again at the same address is a new
// lock (#2); the locks of a pool, initialised by one line, are told apart by address (@i/n).
// RUN: %cc %s -o %t
// RUN: %rcl-prof --json %t.json -- %t
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s
// CHECK-DAG: lock {{[0-9]}} global_lock identity=symbol acq=1 
// CHECK-DAG: lock {{[0-9]}} bucket_locks+40 identity=symbol acq=2 
#include <pthread.h>
#include <stdlib.h>

pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t bucket_locks[4] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                   PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};

static void lock_n(pthread_mutex_t *m, int n) {
    for (int i = 0; i < n; i++) {
        pthread_mutex_lock(m);
        pthread_mutex_unlock(m);
    }
}

int main(void) {
    lock_n(&global_lock, 1);
    lock_n(&bucket_locks[1], 2);
    pthread_mutex_t *heap = malloc(sizeof *heap);
    pthread_mutex_init(heap, NULL); // CHECK-DAG: lock {{[0-9]}} site:{{.*}}lock_identity.c:[[@LINE]] identity=site acq=3 
    lock_n(heap, 3);
    pthread_mutex_destroy(heap);
    pthread_mutex_init(heap, NULL); // CHECK-DAG: lock {{[0-9]}} site:{{.*}}lock_identity.c:[[@LINE]]#2 identity=site acq=4 
    lock_n(heap, 4);
    pthread_mutex_destroy(heap);
    free(heap);
    pthread_mutex_t *zeroed = calloc(1, sizeof *zeroed); /* a valid default mutex in glibc */
    pthread_mutex_lock(zeroed); // CHECK-DAG: lock {{[0-9]}} site:{{.*}}lock_identity.c:[[@LINE]] identity=site acq=5 
    pthread_mutex_unlock(zeroed);
    lock_n(zeroed, 4);
    free(zeroed);
    pthread_mutex_t *pool = malloc(3 * sizeof *pool);
    for (int i = 0; i < 3; i++)
        pthread_mutex_init(&pool[i], NULL); // CHECK-DAG: lock {{[0-9]}} site:{{.*}}lock_identity.c:[[@LINE]]@1/3 identity=site acq=6 
    lock_n(&pool[0], 6); // CHECK-DAG: lock {{[0-9]}} site:{{.*}}lock_identity.c:[[@LINE-1]]@2/3 identity=site acq=7 
    lock_n(&pool[1], 7); // CHECK-DAG: lock {{[0-9]}} site:{{.*}}lock_identity.c:[[@LINE-2]]@3/3 identity=site acq=8 
    lock_n(&pool[2], 8);
    free(pool);
    return 0;
}
