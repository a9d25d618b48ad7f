// gemmtune's pool: fork/join of an empty task on 2 threads, per call. From the repository root
// after `make build`: g++ -O2 -std=c++20 -Isrc -Iinclude pool.cc build/lib/libgemmtune.a -lpthread -o pool
#include "backends/cpu/cpu_thread_pool.h"
#include <chrono>
#include <cstdio>
#include <atomic>
using namespace gemmtune::cpu;
std::atomic<int> hits{0};
void noop(void*, int t, int) { if (t) hits.fetch_add(1, std::memory_order_relaxed); }
int main() {
  for (int r = 0; r < 5; ++r) {
    const int n = 200000;
    hits = 0;
    auto s = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) parallel_run(2, &noop, nullptr);
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count();
    std::printf("fork/join of an empty task on 2 threads: %.3f us per call (worker ran %d of %d)\n", us / n, hits.load(), n);
  }
}
