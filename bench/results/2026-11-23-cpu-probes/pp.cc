#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <immintrin.h>
alignas(64) std::atomic<int> ping{0};
alignas(64) std::atomic<int> pong{0};
int main(int argc, char**) {
  bool pause = argc > 1;
  const int n = 1000000;
  std::thread t([&] { for (int i = 1; i <= n; ++i) { while (ping.load(std::memory_order_acquire) != i) { if (pause) _mm_pause(); } pong.store(i, std::memory_order_release); } });
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 1; i <= n; ++i) { ping.store(i, std::memory_order_release); while (pong.load(std::memory_order_acquire) != i) { if (pause) _mm_pause(); } }
  printf("round trip %.1f ns (pause=%d)\n", std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n, pause);
  t.join();
}
