// A program that never locks a mutex: an empty report that says so, and an empty lock list.
// RUN: %cc %s -o %t
// RUN: %rcl-prof -o %t.txt --json %t.json -- %t
// RUN: FileCheck %s < %t.txt
// RUN: %python %S/Inputs/profile_lines.py %t.json | FileCheck %s --check-prefix=JSON
// CHECK: No mutex was locked while the program ran: nothing to convert.
// JSON: locks 0 untracked=0 threads=1 ended_by=exit exit=0
#include <stdio.h>

int main(void) {
    puts("no locks here");
    return 0;
}
