// Case 8: `while (!ready) pthread_cond_wait(&c, &m);` inside a section converts: the wait
// becomes rcl_cond_wait, which hands the server's polling role to a spare servicing thread
// before it blocks, so the sections that signal still run. A wait spelled through a macro
// that only renames the function (`#define cond_wait pthread_cond_wait`) is edited at its use.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: sed '/^ *\/\//d' %t.c | not grep -E 'pthread_cond_wait\(| cond_wait\('
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && timeout 60 %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
#include <pthread.h>
#include <stdio.h>

#define cond_wait pthread_cond_wait

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready;

/* A one-slot mailbox: put waits until the slot is empty, take until it is full. */
struct slot {
    pthread_mutex_t lock;
    pthread_cond_t filled, emptied;
    int full;
    int value;
};

// CHECK: #include <rcl/rcl.h>
// CHECK: static RCL_SECTION_INLINE int rcl_cs_await_start_1(void *rcl_arg)
// CHECK-NEXT: {
// CHECK-NEXT:     (void)rcl_arg;
// CHECK-NEXT:     while (!ready)
// CHECK-NEXT:         rcl_cond_wait(&c, &m);
// CHECK-NEXT:     return 0;
// CHECK-NEXT: }
// CHECK: static void await_start(void)
// CHECK: rcl_delegate(&m, rcl_cs_await_start_1, (void *)0);
static void await_start(void)
{
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
}

// CHECK: static RCL_SECTION_INLINE int rcl_cs_start_1(void *rcl_arg)
// CHECK:     ready = 1;
// CHECK-NEXT:     pthread_cond_broadcast(&c);
// CHECK-NEXT:     return 0;
static void start(void)
{
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_cond_broadcast(&c);
    pthread_mutex_unlock(&m);
}

// CHECK: struct rcl_cs_take_1_ctx {
// CHECK-NEXT:     struct slot *s;
// CHECK-NEXT:     int *got;
// CHECK-NEXT: };
// CHECK: static RCL_SECTION_INLINE int rcl_cs_take_1(void *rcl_arg)
// CHECK-NEXT: {
// CHECK-NEXT:     struct rcl_cs_take_1_ctx *rcl_ctx = (struct rcl_cs_take_1_ctx *)rcl_arg;
// CHECK-NEXT:     struct slot *s = rcl_ctx->s;
// CHECK-NEXT:     while (!s->full)
// CHECK-NEXT:         rcl_cond_wait(&s->filled, &s->lock);
// CHECK-NEXT:     (*rcl_ctx->got) = s->value;
// CHECK-NEXT:     s->full = 0;
// CHECK-NEXT:     pthread_cond_signal(&s->emptied);
// CHECK-NEXT:     return 0;
// CHECK-NEXT: }
// CHECK: static int take(struct slot *s)
// CHECK: struct rcl_cs_take_1_ctx rcl_ctx = { .s = s, .got = &got };
// CHECK-NEXT: rcl_delegate_ctx(&s->lock, rcl_cs_take_1, &rcl_ctx, sizeof rcl_ctx);
static int take(struct slot *s)
{
    int got;
    pthread_mutex_lock(&s->lock);
    while (!s->full)
        pthread_cond_wait(&s->filled, &s->lock);
    got = s->value;
    s->full = 0;
    pthread_cond_signal(&s->emptied);
    pthread_mutex_unlock(&s->lock);
    return got;
}

// CHECK: static RCL_SECTION_INLINE int rcl_cs_put_1(void *rcl_arg)
// CHECK:     while (s->full)
// CHECK-NEXT:         rcl_cond_wait(&s->emptied, &s->lock);
// CHECK-NEXT:     s->value = v;
// CHECK: static void put(struct slot *s, int v)
// CHECK: rcl_delegate_ctx(&s->lock, rcl_cs_put_1, &rcl_ctx, sizeof rcl_ctx);
// SUMMARY-NOT: cannot convert
// SUMMARY: rcl: summary: 4 converted, 0 refused
static void put(struct slot *s, int v)
{
    pthread_mutex_lock(&s->lock);
    while (s->full)
        cond_wait(&s->emptied, &s->lock);
    s->value = v;
    s->full = 1;
    pthread_cond_signal(&s->filled);
    pthread_mutex_unlock(&s->lock);
}

static struct slot box = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                          PTHREAD_COND_INITIALIZER, 0, 0};

static void *consumer(void *arg)
{
    long sum = 0;
    (void)arg;
    await_start();
    for (int i = 0; i < 200; i++)
        sum += take(&box);
    printf("consumer: sum %ld\n", sum);
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, consumer, NULL);
    start();
    for (int i = 1; i <= 400; i++)
        put(&box, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("slot full: %d\n", box.full);
    return 0;
}
