/* A suite's process for corpus/acquisitions.py: 30 sections delegated (rcl_delegate, as a
 * converted section runs) and 10 left in place (pthread_mutex_lock), on two locks. */
#include <pthread.h>
#include <rcl/rcl.h>
#include <stdio.h>

static pthread_mutex_t converted = PTHREAD_MUTEX_INITIALIZER, kept = PTHREAD_MUTEX_INITIALIZER;
static long n;

static int bump(void *arg) {
    (void)arg;
    n++;
    return 0;
}

int main(void) {
    for (int i = 0; i < 30; i++)
        rcl_delegate(&converted, bump, NULL);
    for (int i = 0; i < 10; i++) {
        pthread_mutex_lock(&kept);
        n++;
        pthread_mutex_unlock(&kept);
    }
    printf("%ld\n", n);
    return 0;
}
