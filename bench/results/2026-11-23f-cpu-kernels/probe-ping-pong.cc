// A cache-line round trip between the VM's two vCPUs, spinning with and without PAUSE, and
// what one PAUSE and one steady_clock::now cost. g++ -O2 -std=c++20 probe-ping-pong.cc -lpthread
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <immintrin.h>
template <bool PAUSE>
double rt() {
  alignas(64) static std::atomic<int> flag{0};
  flag = 0;
  const int n = 200000;
  std::thread other([&] { for (int i = 0; i < n; ++i) { while (flag.load(std::memory_order_acquire) != 2 * i + 1) { if (PAUSE) _mm_pause(); } flag.store(2 * i + 2, std::memory_order_release); } });
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) { flag.store(2 * i + 1, std::memory_order_release); while (flag.load(std::memory_order_acquire) != 2 * i + 2) { if (PAUSE) _mm_pause(); } }
  auto t1 = std::chrono::steady_clock::now();
  other.join();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
}
int main() {
  for (int r = 0; r < 3; ++r) printf("no pause %.0f ns, pause %.0f ns\n", rt<false>(), rt<true>());
  // cost of one pause
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000000; ++i) _mm_pause();
  auto t1 = std::chrono::steady_clock::now();
  printf("pause: %.1f ns each\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / 1e6);
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000000; ++i) { auto x = std::chrono::steady_clock::now(); asm volatile("" :: "r"(x.time_since_epoch().count())); }
  t1 = std::chrono::steady_clock::now();
  printf("steady_clock::now: %.1f ns each\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / 1e6);
}
