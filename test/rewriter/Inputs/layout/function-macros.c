/* Functions that macros declare or define (layout-function-macros.test). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

/* The macro writes the declaration, the body is written out: converted. */
#define HANDLER(name) static void name(long n)
HANDLER(add)
{
    pthread_mutex_lock(&lock);
    total += n;
    pthread_mutex_unlock(&lock);
}

/* The macro writes the body too: the tool does not edit a macro's definition, but rcl-cc's copy
   has the use expanded. */
#define DEFINE_ADDER(name)                                                                       \
    static void name(long n) {                                                                   \
        pthread_mutex_lock(&lock);                                                               \
        total += 2 * n;                                                                          \
        pthread_mutex_unlock(&lock);                                                             \
    }
DEFINE_ADDER(add_twice)

/* The macro declares the counter and the function's head: the outlined section would go before
   the counter's declaration. Refused; it broke the whole file (the rewritten copy did not
   compile: `hits` undeclared). */
#define COUNTER(v) static long v; static void bump_##v(void)
COUNTER(hits) { pthread_mutex_lock(&lock); hits++; pthread_mutex_unlock(&lock); }

int main(void)
{
    add(1);
    add_twice(2);
    bump_hits();
    printf("%ld %ld %s:%d\n", total, hits, __FILE__, __LINE__);
    return 0;
}
