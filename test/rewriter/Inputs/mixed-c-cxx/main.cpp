// The C++ half: threads that add to the C counter.
#include <cstdio>
#include <thread>
#include <vector>

#include "counter.h"

int main() {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([] {
            for (int i = 0; i < 1000; i++)
                counter_add(1);
        });
    for (std::thread &t : threads)
        t.join();
    std::printf("counter %ld\n", counter_get());
    return counter_get() == 4000 ? 0 : 1;
}
