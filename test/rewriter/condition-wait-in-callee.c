// Case 8 through a call: a section that calls a function of the file which waits on a
// condition variable (memcached's memcached_thread_init holds init_lock around
// wait_for_thread_registration) is converted, and the waits in the functions it reaches are
// renamed to rcl_cond_* so that a blocked server hands its polling role over at once; the
// renamed callees stay right everywhere else (outside a delegated section rcl_cond_wait is
// pthread_cond_wait). A callee wait that cannot be edited (inside a macro body) is left as
// written: the runtime's blocking detector hands the server over while it blocks. Each case
// is reported as a note, on stderr and in --report-json. The include goes before the first
// function that calls rcl_cond_wait.
// RUN: %rcl-rewrite --all --report-json %t.json %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=NOTES < %t.err
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && timeout 60 %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
// With --line-directives (rcl-cc), the early include keeps the lines of what follows.
// RUN: %rcl-rewrite --all --line-directives %s -- %rcl_cflags > %t.lines.c 2>/dev/null
// RUN: FileCheck %s --check-prefix=LINES < %t.lines.c
// RUN: %cc -c %t.lines.c -o %t.lines.o
#include <pthread.h>
#include <stdio.h>

#define WAIT_FOR(c, mu) pthread_cond_wait(&(c), &(mu))

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t init_cond = PTHREAD_COND_INITIALIZER, flag_cond = PTHREAD_COND_INITIALIZER;
static int registered, flag;

// CHECK: #include <rcl/rcl.h>
// CHECK: static void wait_for_registration(int n)
// CHECK-NEXT: {
// CHECK-NEXT:     while (registered < n)
// CHECK-NEXT:         rcl_cond_wait(&init_cond, &init_lock);
// CHECK-NEXT: }
// LINES: {{^}}#include <rcl/rcl.h>
// LINES-NEXT: {{^$}}
// LINES-NEXT: {{^}}#line [[#@LINE+2]] "{{.*}}condition-wait-in-callee.c"
/* Called with init_lock held. */
static void wait_for_registration(int n)
{
    while (registered < n)
        pthread_cond_wait(&init_cond, &init_lock);
}

static void await_workers(int n)
{
    wait_for_registration(n);
}

// CHECK: static RCL_SECTION_INLINE int rcl_cs_register_worker_1(void *rcl_arg)
// CHECK:     pthread_cond_signal(&init_cond);
static void register_worker(void)
{
    pthread_mutex_lock(&init_lock);
    registered++;
    pthread_cond_signal(&init_cond);
    pthread_mutex_unlock(&init_lock);
}

// CHECK: static RCL_SECTION_INLINE int rcl_cs_wait_all_1(void *rcl_arg)
// CHECK-NEXT: {
// CHECK-NEXT:     struct rcl_cs_wait_all_1_ctx *rcl_ctx = (struct rcl_cs_wait_all_1_ctx *)rcl_arg;
// CHECK-NEXT:     int n = rcl_ctx->n;
// CHECK-NEXT:     await_workers(n);
// CHECK-NEXT:     (*rcl_ctx->seen) = registered;
// CHECK-NEXT:     return 0;
// CHECK-NEXT: }
// CHECK: rcl_delegate_ctx(&init_lock, rcl_cs_wait_all_1, &rcl_ctx, sizeof rcl_ctx);
static int wait_all(int n)
{
    int seen;
    pthread_mutex_lock(&init_lock);
    await_workers(n);
    // NOTES: condition-wait-in-callee.c:[[@LINE-1]]:5: rcl: note: converted critical section calls 'await_workers', which waits on a condition variable (pthread_cond_wait in 'wait_for_registration', condition-wait-in-callee.c:43): renamed to rcl_cond_wait
    seen = registered;
    pthread_mutex_unlock(&init_lock);
    return seen;
}

/* The mutex comes from the caller: renamed all the same. */
// CHECK: static void wait_flag_on(pthread_mutex_t *lock)
// CHECK-NEXT: {
// CHECK-NEXT:     while (!flag)
// CHECK-NEXT:         rcl_cond_wait(&flag_cond, lock);
// CHECK-NEXT: }
static void wait_flag_on(pthread_mutex_t *lock)
{
    while (!flag)
        pthread_cond_wait(&flag_cond, lock);
}

// CHECK: rcl_delegate(&init_lock, rcl_cs_wait_flag_1, (void *)0);
static void wait_flag(void)
{
    pthread_mutex_lock(&init_lock);
    wait_flag_on(&init_lock);
    // NOTES: condition-wait-in-callee.c:[[@LINE-1]]:5: rcl: note: converted critical section calls 'wait_flag_on', which waits on a condition variable (pthread_cond_wait, condition-wait-in-callee.c:90): renamed to rcl_cond_wait
    pthread_mutex_unlock(&init_lock);
}

static void raise_flag(void)
{
    pthread_mutex_lock(&init_lock);
    flag = 1;
    pthread_cond_signal(&flag_cond);
    pthread_mutex_unlock(&init_lock);
}

/* Inside a macro body: left as written (compiled, not run here). */
// CHECK: static void wait_flag_macro(void)
// CHECK-NEXT: {
// CHECK-NEXT:     while (!flag)
// CHECK-NEXT:         WAIT_FOR(flag_cond, init_lock);
// CHECK-NEXT: }
static void wait_flag_macro(void)
{
    while (!flag)
        WAIT_FOR(flag_cond, init_lock);
}

void wait_flag_locked(void)
{
    pthread_mutex_lock(&init_lock);
    wait_flag_macro();
    // NOTES: condition-wait-in-callee.c:[[@LINE-1]]:5: rcl: note: converted critical section calls 'wait_flag_macro', which waits on a condition variable (pthread_cond_wait, condition-wait-in-callee.c:119): left as is (the condition wait is written inside macro 'WAIT_FOR', whose definition the tool does not edit (write the call out, or call rcl_cond_wait in the macro)); the runtime's blocking detector hands the server over while it blocks
    pthread_mutex_unlock(&init_lock);
}
// NOTES: rcl: summary: 5 converted, 0 refused
// JSON: "function": "wait_all",
// JSON: "notes": [
// JSON-NEXT: "calls 'await_workers', which waits on a condition variable (pthread_cond_wait in 'wait_for_registration', condition-wait-in-callee.c:43): renamed to rcl_cond_wait"
// JSON-NEXT: ],

static void *worker(void *arg)
{
    (void)arg;
    register_worker();
    return NULL;
}

static void *flagger(void *arg)
{
    (void)arg;
    raise_flag();
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    printf("registered: %d\n", wait_all(3));
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    pthread_create(&t[0], NULL, flagger, NULL);
    wait_flag();
    pthread_join(t[0], NULL);
    printf("flag: %d\n", flag);
    return 0;
}
