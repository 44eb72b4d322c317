// Case 2: a label inside the section that a goto reaches from outside it (before the lock,
// after the unlock, or after an unlock inside the section), a goto that leaves the section
// with the lock held and a label whose address is taken are refused; the file stays
// byte-identical.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: cmp %s %t.c
// RUN: FileCheck %s < %t.err
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int v;

int retry(int n)
{
    if (n > 3)
        goto again;
    pthread_mutex_lock(&m);
    v++;
again:
    // CHECK: goto-into-section-refused.c:[[@LINE-1]]:1: rcl: cannot convert critical section: contains label 'again', which is also reached from outside the critical section (goto at line 16)
    v += n;
    pthread_mutex_unlock(&m);
    return v;
}

int leave_held(int n)
{
    pthread_mutex_lock(&m);
    if (n)
        goto out;
    // CHECK: goto-into-section-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: goto 'out' leaves the critical section while holding the lock
    v--;
    pthread_mutex_unlock(&m);
out:
    return v;
}

// The `goto out` idiom, but the error path before the lock jumps to the same label: it would
// unlock a mutex it never took, so the label cannot move into the outlined function.
int unlock_label_from_before(int n)
{
    if (n < 0)
        goto out;
    pthread_mutex_lock(&m);
    if (n == 0)
        goto out;
    v += n;
out:
    // CHECK: goto-into-section-refused.c:[[@LINE-1]]:1: rcl: cannot convert critical section: the unlock is behind label 'out', which is also reached from outside the critical section (goto at line 43)
    pthread_mutex_unlock(&m);
    return v;
}

// A goto after the unlock back to the unlock's label (the section's own gotos are fine).
int unlock_label_from_after(int n)
{
    pthread_mutex_lock(&m);
    if (n == 0)
        goto done;
    v += n;
done:
    // CHECK: goto-into-section-refused.c:[[@LINE-1]]:1: rcl: cannot convert critical section: the unlock is behind label 'done', which is also reached from outside the critical section (goto at line 65)
    pthread_mutex_unlock(&m);
    if (--n > 0)
        goto done;
    return v;
}

// A goto in code that runs after an unlock (an exit's tail) back into the section.
int reenter_after_unlock(int n)
{
    pthread_mutex_lock(&m);
again:
    // CHECK: goto-into-section-refused.c:[[@LINE-1]]:1: rcl: cannot convert critical section: contains label 'again', which is also reached from outside the critical section (goto at line 78, after an unlock)
    v++;
    if (v < n) {
        pthread_mutex_unlock(&m);
        goto again;
    }
    pthread_mutex_unlock(&m);
    return v;
}

// A label whose address is taken: a computed goto could jump into the section.
int label_address(int n)
{
    static void *where = &&out;
    pthread_mutex_lock(&m);
    if (n)
        goto *where;
    // CHECK: goto-into-section-refused.c:[[@LINE-1]]:9: rcl: cannot convert critical section: contains a computed goto
    v++;
out:
    pthread_mutex_unlock(&m);
    return v;
}

// The unlock's label has its address taken, and a computed goto before the lock uses it.
int unlock_label_address(int n)
{
    static void *where = &&out;
    if (n < 0)
        goto *where;
    pthread_mutex_lock(&m);
    v++;
out:
    // CHECK: goto-into-section-refused.c:[[@LINE-1]]:1: rcl: cannot convert critical section: the unlock is behind label 'out', which has its address taken (a computed goto could jump into the critical section)
    pthread_mutex_unlock(&m);
    return v;
}

// The code after an exit's unlock falls through into another case of the switch: it cannot
// move to the caller without its switch. (After a tail that leaves, `case 2:` would stay in the
// section: unlock-after-case-label.c.)
int case_after_unlock(int n)
{
    pthread_mutex_lock(&m);
    switch (n) {
    case 1:
        v++;
        pthread_mutex_unlock(&m);
        if (n > v)
            return 1;
    case 2:
        // CHECK: goto-into-section-refused.c:[[@LINE-1]]:5: rcl: cannot convert critical section: a case label of the switch follows an unlock inside the critical section
        v--;
        return 2;
    }
    pthread_mutex_unlock(&m);
    return 0;
}
// CHECK: lock 'm': 0 converted, 8 refused
