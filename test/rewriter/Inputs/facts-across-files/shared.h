#include <pthread.h>
void logger_register(long *counter);
void log_event(int what);
void store_one(int v);
void count_one(int v);
extern long stored;
