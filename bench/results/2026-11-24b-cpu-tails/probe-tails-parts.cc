// Probe: where the rows-dots kernel's time goes. The whole kernel, its rows part alone (the
// rows kernel on C's whole vectors), the copy of B's last columns (with their count a variable
// and a constant) and the dot kernel on the copy, each called alone; medians of 21 rounds of
// 20 000 calls. Built against build/lib/libgemmtune.a:
//   g++ -O3 -std=c++20 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma -Iinclude -Isrc \
//     probe-tails-parts.cc build/lib/libgemmtune.a -lpthread -ldl -lm -lrt
//   ./a.out [M N K [ROWS TILE'S ROWS [DOT TILE'S ROWS]]]   (default 17 33 65 8 8)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#include "backends/cpu/cpu_kernels.h"
using namespace gemmtune::cpu;
using clk = std::chrono::steady_clock;
constexpr gemmtune::DType f32 = gemmtune::DType::f32;
template <class F> double med(F&& f) {
  std::vector<double> t;
  for (int r = 0; r < 21; ++r) {
    auto t0 = clk::now();
    for (int i = 0; i < 20000; ++i) { f(); asm volatile("" ::: "memory"); }
    t.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / 20000);
  }
  std::sort(t.begin(), t.end());
  return t[10];
}
int main(int argc, char** argv) {
  int m = 17, n = 33, k = 65, mr = 8, dmr = 8;
  if (argc > 3) m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
  if (argc > 4) mr = atoi(argv[4]);
  if (argc > 5) dmr = atoi(argv[5]);
  const int whole = n / 16 * 16, tail = n - whole;
  std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n), w(tail * 80 * 4);
  CpuGemmParams P;
  P.m = m, P.n = n, P.k = k, P.a_rs = k, P.a_ks = 1, P.b_ks = n, P.b_cs = 1, P.ldc = n;
  auto full = find_cpu_kernel(kIsaAvx512, kAlgoDirectRowsDots, f32, f32, mr, whole / 16);
  auto rows = find_cpu_kernel(kIsaAvx512, kAlgoDirectRows, f32, f32, mr, whole / 16);
  auto dot = find_cpu_kernel(kIsaAvx512, kAlgoDirectDot, f32, f32, dmr, tail);
  CpuGemmParams R = P; R.n = whole;
  const int stride = (k + 15) / 16 * 16;
  CpuGemmParams D = P; D.n = tail; D.b_ks = 1; D.b_cs = stride;
  double tf = med([&] { full(P, a.data(), b.data(), c.data()); });
  double tr = med([&] { rows(R, a.data(), b.data(), c.data()); });
  double tc = med([&] {
    for (int p = 0; p < k; ++p) { const float* row = b.data() + p * n + whole; for (int j = 0; j < tail; ++j) w[j * stride + p] = row[j]; }
  });
  auto copy1 = [&]<int T>(std::integral_constant<int, T>) {
    const float* src = b.data() + whole;
    float* dst = w.data();
    for (int p = 0; p < k; ++p, src += n) {
      for (int j = 0; j < T; ++j) dst[j * stride + p] = src[j];
    }
  };
  double tc1 = tail == 1 ? med([&] { copy1(std::integral_constant<int, 1>{}); }) : tail == 4 ? med([&] { copy1(std::integral_constant<int, 4>{}); }) : -1;
  std::printf("copy with the tail known: %.1f\n", tc1);
  double td = dot ? med([&] { dot(D, a.data(), w.data(), c.data() + whole); }) : -1;
  std::printf("%dx%dx%d rows-dots %dx%d: full %.1f  rows part %.1f  copy %.1f  dot %dx%d %.1f  (sum %.1f)\n", m, n, k, mr,
              whole / 16, tf, tr, tc, dmr, tail, td, tr + tc + td);
}
