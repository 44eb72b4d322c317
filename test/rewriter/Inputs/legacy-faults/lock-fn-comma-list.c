/* legacy-gen finding (a usability fault of rcl-rewrite, found through the harness's first
   command line): rcl-cc takes wrapper lists (RCL_CC_LOCK_FN="my_lock,possess_"), rcl-rewrite
   takes one name per option (--lock-fn=my_lock --lock-fn=possess_), but it accepts
   `--lock-fn=my_lock,possess_` without a word, as one function named "my_lock,possess_" that
   matches nothing: no wrapper is declared, the wrappers' own bodies become refused sections
   ("the lock is still held at the end of its block", 2 refused) and their callers' sections
   are neither converted nor refused, they are missing from the report ("0 converted, 2
   refused" instead of "1 converted, 2 refused" for f0, f1 and f3). From the repository root:
     build/rewriter/rcl-rewrite --all --dry-run --lock-fn=my_lock,possess_ --unlock-fn=my_unlock,release_ test/rewriter/Inputs/legacy-faults/lock-fn-comma-list.c --
     build/rewriter/rcl-rewrite --all --dry-run --lock-fn=my_lock --lock-fn=possess_ --unlock-fn=my_unlock --unlock-fn=release_ test/rewriter/Inputs/legacy-faults/lock-fn-comma-list.c --
   Expected: the first command rejected (a C function name has no comma) or split like rcl-cc's
   lists; the second is what the harness passes now. */
#include <pthread.h>
#include <stdio.h>

typedef struct { pthread_mutex_t mutex; unsigned long value; } lock;

static void my_lock(pthread_mutex_t *m) { pthread_mutex_lock(m); }
static void my_unlock(pthread_mutex_t *m) { pthread_mutex_unlock(m); }
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

static pthread_mutex_t m0 = PTHREAD_MUTEX_INITIALIZER;
static lock L1 = { PTHREAD_MUTEX_INITIALIZER, 0 }, L3 = { PTHREAD_MUTEX_INITIALIZER, 0 };
static unsigned long g0;

static void f0(void) { my_lock(&m0); g0++; my_unlock(&m0); }
static void f1(void) { possess(&L1); L1.value++; release(&L1); }
static void f3(void) { possess(&L3); L3.value++; release(&L3); }

int main(void)
{
    f0();
    f1();
    f3();
    printf("%lu %lu %lu\n", g0, L1.value, L3.value);
    return 0;
}
