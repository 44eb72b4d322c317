/* legacy-gen fault: a return after an unlock whose expression ends in a string or character
   literal gives uncompilable output. The tail copied to the call site loses its ';'
   (`return "busy"` followed by `}`), for `return "busy";`, `return '\n';` and also
   `return v & 1 ? "v" : "w";` (the expression only has to end in a literal; `return (v & 1 ?
   "v" : "w");` and `return -1;` convert). Seen first in /work/shared/cases/return_literal_after_unlock.c;
   docs/rewriter.md, "Legacy shapes in the differential fuzzer", counts it. From the repository
   root:
     build/rewriter/rcl-rewrite --all test/rewriter/Inputs/legacy-faults/return-ends-in-literal.c -- > /tmp/out.c
     clang-19 -fsyntax-only -Iruntime/include /tmp/out.c      # error: expected ';' after return statement (3x)
   Expected: compiles and prints "busy v x / other w y 3" like the original, in every RCL_MODE. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static unsigned long g;

static const char *state(int a)
{
    pthread_mutex_lock(&m);
    g++;
    if (a == 1) {
        pthread_mutex_unlock(&m);
        return "busy";
    }
    pthread_mutex_unlock(&m);
    return "other";
}

static const char *parity(int a)
{
    pthread_mutex_lock(&m);
    long v = a * 3 + 1;
    g++;
    if (a % 2 == 0) {
        pthread_mutex_unlock(&m);
        return v & 1 ? "v" : "w";
    }
    pthread_mutex_unlock(&m);
    return "w";
}

static char mark(int a)
{
    pthread_mutex_lock(&m);
    g++;
    if (a == 1) {
        pthread_mutex_unlock(&m);
        return 'x';
    }
    pthread_mutex_unlock(&m);
    return 'y';
}

int main(void)
{
    printf("%s %s %c / ", state(1), parity(2), mark(1));
    printf("%s %s %c %lu\n", state(2), parity(3), mark(2), g / 2);
    return 0;
}
