// The CPU thread pool's fork/join (parallel_run) on an empty task and on a busy loop, one
// thread against two. Built as
//   g++ -O2 -std=c++20 -Isrc/backends/cpu probe-pool-forkjoin.cc build/lib/libgemmtune.a -lpthread
// and run as ./a.out ITERS (0, 1000, 3000).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "cpu_thread_pool.h"
using namespace gemmtune::cpu;
static long iters;
static void task(void* ctx, int t, int n) {
  volatile long x = 0;
  for (long i = 0; i < iters; ++i) x = x + 1;
}
int main(int argc, char** argv) {
  iters = argc > 1 ? atol(argv[1]) : 0;
  for (int rep = 0; rep < 2; ++rep)
  for (int threads : {1, 2}) {
    std::vector<double> t;
    for (int r = 0; r < 31; ++r) {
      const int calls = 2000;
      auto t0 = std::chrono::steady_clock::now();
      for (int c = 0; c < calls; ++c) parallel_run(threads, task, nullptr);
      auto t1 = std::chrono::steady_clock::now();
      t.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
    }
    std::sort(t.begin(), t.end());
    printf("threads=%d iters=%ld: %.0f ns per run (min %.0f)\n", threads, iters, t[15], t[0]);
  }
}
