#ifndef COUNTER_H
#define COUNTER_H
#ifdef __cplusplus
extern "C" {
#endif
void counter_add(long n);
long counter_get(void);
#ifdef __cplusplus
}
#endif
#endif
