/* Two wrapper pairs (from /work/shared/cases/wrapper_lists.c, whose wrappers also abort when
   the lock call fails: rcl-rewrite refuses those as wrappers that do more than lock, so the
   list test uses plain ones). */
#include <pthread.h>
#include <stdio.h>

typedef pthread_mutex_t my_mutex_t;
void my_lock(my_mutex_t *m)   { pthread_mutex_lock(m); }
void my_unlock(my_mutex_t *m) { pthread_mutex_unlock(m); }
void q_lock(my_mutex_t *m)    { pthread_mutex_lock(m); }
void q_unlock(my_mutex_t *m)  { pthread_mutex_unlock(m); }

static my_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static int x, y;

int main(void)
{
    my_lock(&a);
    x++;
    my_unlock(&a);
    q_lock(&b);
    y++;
    q_unlock(&b);
    printf("%d %d\n", x, y);
    return 0;
}
