/* Small helpers shared by the runtime's lit tests. */
#ifndef RCL_TEST_HARNESS_H
#define RCL_TEST_HARNESS_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);       \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* Run fn(i) on n threads, i = 0..n-1, and join them all. */
static inline void run_threads(int n, void *(*fn)(void *)) {
    pthread_t *t = calloc((size_t)n, sizeof *t);
    CHECK(t != NULL);
    for (long i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, fn, (void *)i) == 0);
    for (int i = 0; i < n; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    free(t);
}

#endif
