/*
 * bank - a small legacy-style server core that delegates its critical sections by hand
 * with librcl (the rewriter automates exactly this transformation).
 *
 * A table of accounts behind one hot lock: worker threads move money between random accounts
 * (each transfer touches two accounts' cache lines plus a journal) and audit the total now and
 * then. At exit the program checks that no money was created or lost and that every transfer
 * was journaled, and prints its throughput.
 *
 * usage: bank [threads] [seconds]     (defaults: 2 threads, 1 second)
 * The same binary runs with RCL_MODE=adaptive (default: the runtime picks, per lock, the
 * caller or the server), RCL_MODE=delegate or RCL_MODE=local.
 */
#include <rcl/rcl.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ACCOUNTS 256
#define INITIAL  1000

struct account {
    long balance;
    long transfers;
    char pad[64 - 2 * sizeof(long)];
};

static pthread_mutex_t bank_lock = PTHREAD_MUTEX_INITIALIZER;
static struct account accounts[ACCOUNTS]; /* protected by bank_lock */
static long journal_entries;              /* protected by bank_lock */
static atomic_int stop;

struct transfer {
    int from, to;
    long amount;
};

/* The critical section, outlined: returns 0 when the transfer was refused (funds). */
static int transfer_cs(void *arg) {
    struct transfer *t = arg;
    if (accounts[t->from].balance < t->amount) return 0;
    accounts[t->from].balance -= t->amount;
    accounts[t->to].balance += t->amount;
    accounts[t->from].transfers++;
    accounts[t->to].transfers++;
    journal_entries++;
    return 1;
}

static int audit_cs(void *arg) {
    long *total = arg;
    *total = 0;
    for (int i = 0; i < ACCOUNTS; i++)
        *total += accounts[i].balance;
    return 0;
}

struct worker_stats {
    long done, refused, audits_failed;
};

static void *worker(void *arg) {
    struct worker_stats *st = arg;
    unsigned seed = (unsigned)(uintptr_t)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        struct transfer t = {rand_r(&seed) % ACCOUNTS, rand_r(&seed) % ACCOUNTS,
                             rand_r(&seed) % 50};
        if (t.from == t.to) continue;
        if (rcl_delegate(&bank_lock, transfer_cs, &t))
            st->done++;
        else
            st->refused++;
        if ((st->done & 1023) == 0) {
            long total;
            rcl_delegate(&bank_lock, audit_cs, &total);
            st->audits_failed += total != (long)ACCOUNTS * INITIAL;
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    double seconds = argc > 2 ? atof(argv[2]) : 1.0;
    if (threads < 1 || threads > 1024 || seconds <= 0) {
        fprintf(stderr, "usage: bank [threads 1..1024] [seconds > 0]\n");
        return 2;
    }
    for (int i = 0; i < ACCOUNTS; i++)
        accounts[i].balance = INITIAL;
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    struct worker_stats *st = calloc((size_t)threads, sizeof *st);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < threads; i++)
        pthread_create(&tid[i], NULL, worker, &st[i]);
    usleep((useconds_t)(seconds * 1e6));
    atomic_store(&stop, 1);
    long done = 0, audits_failed = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        done += st[i].done;
        audits_failed += st[i].audits_failed;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    long total = 0, transfers = 0;
    for (int i = 0; i < ACCOUNTS; i++) {
        total += accounts[i].balance;
        transfers += accounts[i].transfers;
    }
    int ok = total == (long)ACCOUNTS * INITIAL && transfers == 2 * journal_entries &&
             journal_entries == done && audits_failed == 0;
    printf("bank: mode=%s threads=%d transfers=%ld (%.0f/s) self-check %s\n",
           rcl_mode() == RCL_MODE_LOCAL      ? "local"
           : rcl_mode() == RCL_MODE_ADAPTIVE ? "adaptive"
                                             : "delegate",
           threads, done, (double)done / wall, ok ? "passed" : "FAILED");
    free(tid);
    free(st);
    return ok ? 0 : 1;
}
