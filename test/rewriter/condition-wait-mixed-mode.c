// Case 8 in mixed mode: only some sections are converted (--at selects take's section,
// --lock=gate both sections of the gate); put's section stays local. Delegated waits are
// signalled by the local section (take waits for `filled`), and a local wait is signalled by a
// delegated section (put waits for `emptied`): the mutex and the condition variables stay the
// program's own, so both directions work, and the program ends with the original's results.
// RUN: %rcl-rewrite --at=%s:29 --lock=gate %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && timeout 60 %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: FileCheck %s --check-prefix=OUT < %t.rcl.out
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t filled = PTHREAD_COND_INITIALIZER, emptied = PTHREAD_COND_INITIALIZER;
static int full, value;
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t opened = PTHREAD_COND_INITIALIZER;
static int gate_open;

// CHECK: static RCL_SECTION_INLINE int rcl_cs_take_1(void *rcl_arg)
// CHECK:     while (!full)
// CHECK-NEXT:         rcl_cond_wait(&filled, &m);
static int take(void)
{
    int v;
    pthread_mutex_lock(&m);
    while (!full)
        pthread_cond_wait(&filled, &m);
    v = value;
    full = 0;
    pthread_cond_signal(&emptied);
    pthread_mutex_unlock(&m);
    return v;
}

// CHECK: static void put(int v)
// CHECK-NEXT: {
// CHECK-NEXT:     pthread_mutex_lock(&m);
// CHECK-NEXT:     while (full)
// CHECK-NEXT:         pthread_cond_wait(&emptied, &m);
// CHECK-NEXT:     value = v;
// CHECK-NEXT:     full = 1;
// CHECK-NEXT:     pthread_cond_signal(&filled);
// CHECK-NEXT:     pthread_mutex_unlock(&m);
// CHECK-NEXT: }
static void put(int v)
{
    pthread_mutex_lock(&m);
    while (full)
        pthread_cond_wait(&emptied, &m);
    value = v;
    full = 1;
    pthread_cond_signal(&filled);
    pthread_mutex_unlock(&m);
}

// CHECK: static RCL_SECTION_INLINE int rcl_cs_wait_gate_1(void *rcl_arg)
// CHECK:         rcl_cond_wait(&opened, &gate);
// CHECK: rcl_delegate(&gate, rcl_cs_wait_gate_1, (void *)0);
static void wait_gate(void)
{
    pthread_mutex_lock(&gate);
    while (!gate_open)
        pthread_cond_wait(&opened, &gate);
    pthread_mutex_unlock(&gate);
}

// CHECK: rcl_delegate(&gate, rcl_cs_open_gate_1, (void *)0);
// SUMMARY-NOT: cannot convert
// SUMMARY: rcl: summary: 3 converted, 0 refused
// SUMMARY-NEXT: lock 'gate': 2 converted, 0 refused
// SUMMARY-NEXT: lock 'm': 1 converted, 0 refused
static void open_gate(void)
{
    pthread_mutex_lock(&gate);
    gate_open = 1;
    pthread_cond_broadcast(&opened);
    pthread_mutex_unlock(&gate);
}

static void *consumer(void *arg)
{
    long sum = 0;
    wait_gate();
    for (int i = 0; i < 300; i++)
        sum += take();
    *(long *)arg = sum;
    return NULL;
}

// OUT: took 600 values, sum 180300, slot full 0
int main(void)
{
    pthread_t t[2];
    long sums[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, consumer, &sums[i]);
    open_gate();
    for (int v = 1; v <= 600; v++)
        put(v);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("took 600 values, sum %ld, slot full %d\n", sums[0] + sums[1], full);
    return 0;
}
