#include <pthread.h>
#define LOCKED(m, stmt) do { pthread_mutex_lock(&(m)); stmt; pthread_mutex_unlock(&(m)); } while (0)
#define GRAB(m) pthread_mutex_lock(&(m))
#define DROP(m) pthread_mutex_unlock(&(m))
