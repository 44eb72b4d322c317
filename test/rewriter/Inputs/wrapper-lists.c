/* Two wrapper pairs (from /work/shared/cases/wrapper_lists.c). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef pthread_mutex_t my_mutex_t;
void my_lock(my_mutex_t *m)   { if (pthread_mutex_lock(m)) abort(); }
void my_unlock(my_mutex_t *m) { if (pthread_mutex_unlock(m)) abort(); }
void q_lock(my_mutex_t *m)    { if (pthread_mutex_lock(m)) abort(); }
void q_unlock(my_mutex_t *m)  { if (pthread_mutex_unlock(m)) abort(); }

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
