/* Two sections calling functions of other files, none of which names a mutex (rcl-cc skips
   their parse): set_title renames the calling thread through apply_name, a file further
   (name.c); count_up is harmless. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

void set_title(const char *t);
long count_up(long n);

static pthread_mutex_t title_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static char title[16];
static long total;

static void set_process_title(const char *t)
{
    pthread_mutex_lock(&title_lock);
    strncpy(title, t, sizeof title - 1);
    set_title(title);
    pthread_mutex_unlock(&title_lock);
}

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        pthread_mutex_lock(&count_lock);
        total = count_up(total);
        pthread_mutex_unlock(&count_lock);
    }
    return NULL;
}

int main(void)
{
    char comm[32] = "";
    pthread_t t[2];
    set_process_title("renamed");
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    FILE *f = fopen("/proc/thread-self/comm", "r");
    if (f) {
        if (!fgets(comm, sizeof comm, f)) comm[0] = 0;
        fclose(f);
    }
    comm[strcspn(comm, "\n")] = 0;
    printf("calling thread: %s, total %ld\n", comm, total);
    return strcmp(comm, "renamed") != 0 || total != 20000;
}
