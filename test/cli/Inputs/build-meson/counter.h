/* A counter library whose section calls a function of another file (scale.c): rcl build
   converts it in its second pass, once scale.c's facts are known. */
#ifndef COUNTER_H
#define COUNTER_H
long counter_add(long n);
long scale(long n);
#endif
