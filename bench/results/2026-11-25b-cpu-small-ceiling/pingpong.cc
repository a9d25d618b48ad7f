// Round trip of a cache line between two threads (ping-pong on two flags): the floor of any
// fork/join between cores.   g++ -O2 -o pingpong pingpong.cc -lpthread && ./pingpong
#include <atomic>
#include <thread>
#include <chrono>
#include <cstdio>
#include <immintrin.h>
alignas(64) std::atomic<int> ping{0};
alignas(64) std::atomic<int> pong{0};
int main() {
  const int n = 200000;
  std::thread t([&] { for (int i = 1; i <= n; ++i) { while (ping.load(std::memory_order_acquire) != i) _mm_pause(); pong.store(i, std::memory_order_release); } });
  auto s = std::chrono::steady_clock::now();
  for (int i = 1; i <= n; ++i) { ping.store(i, std::memory_order_release); while (pong.load(std::memory_order_acquire) != i) _mm_pause(); }
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count();
  t.join();
  std::printf("round trip between two threads: %.3f us (one way ~%.3f)\n", us / n, us / n / 2);
}
