#include <stdio.h>

void add(int k);
long *lookup(int k);
void release_lookup(void);

int main(void)
{
    for (int i = 0; i < 1000; i++) {
        add(i);
        if (i % 2) {
            (*lookup(i))++;
            release_lookup();
        }
    }
    printf("%ld\n", *lookup(5) + 0);
    release_lookup();
    return 0;
}
