// Case 8: a bounded buffer with 2 producers and 2 consumers; both sides wait inside their
// sections (not full / not empty) and both sections are converted. Every item must be
// consumed exactly once: the program prints the count, the sum, and how many items were
// seen twice or never.
// RUN: %rcl-rewrite --all %s -- %rcl_cflags > %t.c 2> %t.err
// RUN: sed '/^ *\/\//d' %t.c | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: %cc %s -o %t.orig && %t.orig > %t.orig.out
// RUN: %cc %t.c -o %t.rcl %rcl_libs && timeout 60 %t.rcl > %t.rcl.out
// RUN: diff %t.orig.out %t.rcl.out
// RUN: FileCheck %s --check-prefix=OUT < %t.rcl.out
#include <pthread.h>
#include <stdio.h>

#define PRODUCERS 2
#define CONSUMERS 2
#define PER_PRODUCER 1000
#define ITEMS (PRODUCERS * PER_PRODUCER)
#define SIZE 4

struct buffer {
    pthread_mutex_t lock;
    pthread_cond_t not_full, not_empty;
    int items[SIZE];
    unsigned head, tail, count;
};

static struct buffer buf = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                            PTHREAD_COND_INITIALIZER, {0}, 0, 0, 0};
static unsigned char seen[ITEMS];

// CHECK: static RCL_SECTION_INLINE int rcl_cs_put_1(void *rcl_arg)
// CHECK-NEXT: {
// CHECK-NEXT:     struct rcl_cs_put_1_ctx *rcl_ctx = (struct rcl_cs_put_1_ctx *)rcl_arg;
// CHECK-NEXT:     struct buffer *b = rcl_ctx->b;
// CHECK-NEXT:     int item = rcl_ctx->item;
// CHECK-NEXT:     while (b->count == SIZE)
// CHECK-NEXT:         rcl_cond_wait(&b->not_full, &b->lock);
// CHECK-NEXT:     b->items[b->tail] = item;
// CHECK-NEXT:     b->tail = (b->tail + 1) % SIZE;
// CHECK-NEXT:     b->count++;
// CHECK-NEXT:     pthread_cond_signal(&b->not_empty);
// CHECK-NEXT:     return 0;
// CHECK-NEXT: }
// CHECK: static void put(struct buffer *b, int item)
// CHECK: rcl_delegate_ctx(&b->lock, rcl_cs_put_1, &rcl_ctx, sizeof rcl_ctx);
static void put(struct buffer *b, int item)
{
    pthread_mutex_lock(&b->lock);
    while (b->count == SIZE)
        pthread_cond_wait(&b->not_full, &b->lock);
    b->items[b->tail] = item;
    b->tail = (b->tail + 1) % SIZE;
    b->count++;
    pthread_cond_signal(&b->not_empty);
    pthread_mutex_unlock(&b->lock);
}

// CHECK: struct rcl_cs_get_1_ctx {
// CHECK-NEXT:     struct buffer *b;
// CHECK-NEXT:     int *item;
// CHECK-NEXT: };
// CHECK: static RCL_SECTION_INLINE int rcl_cs_get_1(void *rcl_arg)
// CHECK:     while (b->count == 0)
// CHECK-NEXT:         rcl_cond_wait(&b->not_empty, &b->lock);
// CHECK-NEXT:     (*rcl_ctx->item) = b->items[b->head];
// CHECK: static int get(struct buffer *b)
// CHECK: struct rcl_cs_get_1_ctx rcl_ctx = { .b = b, .item = &item };
// CHECK-NEXT: rcl_delegate_ctx(&b->lock, rcl_cs_get_1, &rcl_ctx, sizeof rcl_ctx);
// SUMMARY-NOT: cannot convert
// SUMMARY: rcl: summary: 2 converted, 0 refused
static int get(struct buffer *b)
{
    int item;
    pthread_mutex_lock(&b->lock);
    while (b->count == 0)
        pthread_cond_wait(&b->not_empty, &b->lock);
    item = b->items[b->head];
    b->head = (b->head + 1) % SIZE;
    b->count--;
    pthread_cond_signal(&b->not_full);
    pthread_mutex_unlock(&b->lock);
    return item;
}

static void *producer(void *arg)
{
    int first = (int)(long)arg * PER_PRODUCER;
    for (int i = 0; i < PER_PRODUCER; i++)
        put(&buf, first + i);
    return NULL;
}

static void *consumer(void *arg)
{
    long sum = 0;
    for (int i = 0; i < ITEMS / CONSUMERS; i++) {
        int item = get(&buf);
        __atomic_fetch_add(&seen[item], 1, __ATOMIC_RELAXED);
        sum += item;
    }
    *(long *)arg = sum;
    return NULL;
}

// OUT: consumed 2000 items, sum 1999000, twice 0, never 0, left 0
int main(void)
{
    pthread_t p[PRODUCERS], c[CONSUMERS];
    long sums[CONSUMERS], sum = 0;
    for (long i = 0; i < CONSUMERS; i++)
        pthread_create(&c[i], NULL, consumer, &sums[i]);
    for (long i = 0; i < PRODUCERS; i++)
        pthread_create(&p[i], NULL, producer, (void *)i);
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(p[i], NULL);
    for (int i = 0; i < CONSUMERS; i++) {
        pthread_join(c[i], NULL);
        sum += sums[i];
    }
    int twice = 0, never = 0;
    for (int i = 0; i < ITEMS; i++) {
        twice += seen[i] > 1;
        never += seen[i] == 0;
    }
    printf("consumed %d items, sum %ld, twice %d, never %d, left %u\n", ITEMS, sum, twice, never,
           buf.count);
    return 0;
}
