#include <chrono>
#include <cstdio>
#include <atomic>
namespace gemmtune::cpu {
using ParallelTask = void (*)(void* context, int thread, int threads);
void parallel_run(int threads, ParallelTask task, void* context);
}
std::atomic<int> sink;
int main() {
  using namespace gemmtune::cpu;
  auto task = [](void* ctx, int t, int n) { (void)ctx; (void)t; (void)n; };
  for (int i = 0; i < 100000; ++i) parallel_run(2, task, nullptr);
  for (int r = 0; r < 5; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    const int n = 200000;
    for (int i = 0; i < n; ++i) parallel_run(2, task, nullptr);
    printf("round trip %.1f ns\n", std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n);
  }
}
