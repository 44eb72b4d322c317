/* legacy-gen fault (a refusal with a false reason, no mismatch): lock wrappers that take the
   caller's __FILE__ and __LINE__, called through macros (`#define possess(a) possess_(a,
   __FILE__, __LINE__)`, a parallel compressor's thread library), declared with --lock-fn and
   --unlock-fn: the lock and the unlock never pair (their argument lists differ in the line),
   so every such section is refused as "the lock is still held at the end of its block", a
   reason that does not say why; every section of this shape in the campaign was refused so.
   The single-file form of /work/shared/cases/wrapper_with_location_args/. From the
   repository root:
     build/rewriter/rcl-rewrite --all --dry-run --lock-fn=possess_ --unlock-fn=release_ test/rewriter/Inputs/legacy-faults/location-wrapper-refused.c --
   Expected: bump's section converted (the wrapper's mutex depends on its first argument
   only), or an accurate reason; same output in every RCL_MODE ("200000"). */
#include <pthread.h>
#include <stdio.h>

typedef struct { pthread_mutex_t mutex; unsigned long value; } lock;

static void possess_(lock *bolt, char const *file, long line)
{
    (void)file;
    (void)line;
    pthread_mutex_lock(&bolt->mutex);
}

static void release_(lock *bolt, char const *file, long line)
{
    (void)file;
    (void)line;
    pthread_mutex_unlock(&bolt->mutex);
}
#define possess(a) possess_(a, __FILE__, __LINE__)
#define release(a) release_(a, __FILE__, __LINE__)

static lock counter = { PTHREAD_MUTEX_INITIALIZER, 0 };

static void bump(void)
{
    possess(&counter);
    counter.value++;
    release(&counter);
}

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100000; i++)
        bump();
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("%lu\n", counter.value);
    return 0;
}
