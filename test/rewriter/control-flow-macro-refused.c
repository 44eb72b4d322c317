// Case 5: macros that hide control flow around the lock are refused, file byte-identical.
// (`LOCK_OR_FAIL(m)`, `if (pthread_mutex_lock(m) != 0) return -1`, converts: its `return` runs
// only when the lock fails, which a delegated lock does not: lock-result-checked.c. So does
// `UNLOCK_RETURN(m, v)`, `do { pthread_mutex_unlock(m); return (v); } while (0)`:
// unlock-return-macro.c.)
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

#define UNLOCK_BREAK(m) do { pthread_mutex_unlock(m); v = -1; } while (0)
#define LOCK_AND_COUNT(m) pthread_mutex_lock(m); v++

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;

// A macro that unlocks and then does more than return or goto (a break would leave its own
// do-while, not the user's loop).
int b(int n)
{
    for (int i = 0; i < n; i++) {
        pthread_mutex_lock(&m);
        if (v > 10)
            UNLOCK_BREAK(&m);
        // CHECK: control-flow-macro-refused.c:[[@LINE-1]]:13: rcl: cannot convert critical section: the unlock is written inside a macro expansion (macro code after it other than return or goto)
        v++;
        pthread_mutex_unlock(&m);
    }
    return v;
}

int c(void)
{
    // A macro that hides another statement next to the lock: never dropped, refused.
    LOCK_AND_COUNT(&m);
    // CHECK: control-flow-macro-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: the critical section is written inside a macro expansion
    v++;
    pthread_mutex_unlock(&m);
    return v;
}
