// One core's f32 FMA peak: 12 independent chains of AVX-512 FMAs, best of 20 runs.
//   g++ -O2 -mavx512f -o peak peak.cc && ./peak
#include <immintrin.h>
#include <chrono>
#include <cstdio>
int main() {
  __m512 a[12]; for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_ps(1.0f + i * 1e-7f);
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  double best = 1e30;
  for (int r = 0; r < 20; ++r) {
    auto s = std::chrono::steady_clock::now();
    for (long it = 0; it < 2000000; ++it)
#pragma GCC unroll 12
      for (int i = 0; i < 12; ++i) a[i] = _mm512_fmadd_ps(a[i], x, y);
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count();
    if (us < best) best = us;
  }
  float sink = 0; for (int i = 0; i < 12; ++i) sink += _mm512_reduce_add_ps(a[i]);
  std::printf("single core f32 FMA peak: %.1f GF/s (%.0f us, sink %g)\n", 2000000.0 * 12 * 32 / best / 1e3, best, sink);
}
