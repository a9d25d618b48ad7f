#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
double run() {
  __m512 acc[12]; for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(i);
  __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.999999f);
  auto t0 = std::chrono::steady_clock::now();
  const long n = 50000000;
  for (long i = 0; i < n; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < 12; ++j) acc[j] = _mm512_fmadd_ps(acc[j], x, y);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  float sink = 0; for (int i = 0; i < 12; ++i) sink += _mm512_reduce_add_ps(acc[i]);
  if (sink == 1234.5f) printf("x");
  return n * 12.0 * 16 / s / 1e9;
}
int main() {
  printf("1 thread: %.1f GFMA/s\n", run());
  double r[2];
  std::thread t([&] { r[1] = run(); });
  r[0] = run(); t.join();
  printf("2 threads: %.1f + %.1f GFMA/s\n", r[0], r[1]);
}
