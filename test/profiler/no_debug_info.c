// A program built without debug info: the lock is still found (its symbol), the call sites
// are unknown, and the report says so and suggests -g.
// RUN: %cc -g0 %s -o %t
// RUN: %rcl-prof -o %t.txt --json %t.json -- %t
// RUN: FileCheck %s < %t.txt
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s --check-prefix=JSON
// CHECK: at main (no_debug_info.c.tmp, no debug info) (200 lock)
// CHECK: call sites unknown for code without debug info (no_debug_info.c.tmp): rebuild with -g
// JSON: lock 1 table_lock identity=symbol acq=200
// JSON: site table_lock ?:0 lock 200
#include <pthread.h>

pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int table[16];

int main(void) {
    for (int i = 0; i < 200; i++) {
        pthread_mutex_lock(&table_lock);
        table[i % 16]++;
        pthread_mutex_unlock(&table_lock);
    }
    return table[3] == 0;
}
