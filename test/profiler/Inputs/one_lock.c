/* One lock, 1,000 short critical sections: the smallest program with a report line. */
#include <pthread.h>

pthread_mutex_t the_lock = PTHREAD_MUTEX_INITIALIZER;

int main(void) {
    static int counter;
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&the_lock);
        counter++;
        pthread_mutex_unlock(&the_lock);
    }
    return counter != 1000;
}
