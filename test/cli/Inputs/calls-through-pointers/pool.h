#include <pthread.h>

struct pool {
    pthread_mutex_t lock;
    long done, sum;
};
/* A task runs with the pool's lock held. */
struct task {
    void (*run)(struct pool *, long);
    long arg;
};
void pool_lock(struct pool *p);
void pool_unlock(struct pool *p);
extern struct task tasks[2];
extern int (*ops[2])(int);
