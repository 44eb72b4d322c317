/* The compatibility suite's project (compat.py): a counter whose critical section rcl-cc
   converts, a lock-free helper, a header. */
#ifndef COUNTER_H
#define COUNTER_H

long counter_add(long n);
long counter_value(void);
const char *counter_where(void);
long square(long x);

#endif
