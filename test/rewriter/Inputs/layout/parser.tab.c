/* What bison writes: the actions of parser.y, with #line directives naming the grammar's lines,
   and its own code (#line back to parser.tab.c). */
#line 1 "parser.tab.c"
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

#line 40 "parser.y"
static void add(long n)
{
    pthread_mutex_lock(&lock);
    total += n;
    pthread_mutex_unlock(&lock);
    printf("%s:%d\n", __FILE__, __LINE__);
}
#line 18 "parser.tab.c"

int main(void)
{
    add(1);
    add(2);
    printf("%ld %s:%d\n", total, __FILE__, __LINE__);
    return total == 3 ? 0 : 1;
}
