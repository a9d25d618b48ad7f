// Probe: two of gemmtune's own f32 kernels against libxsmm's JIT kernel on one shape, each
// called straight through its function pointer (no dispatch on either side), 21 interleaved
// rounds of 200 000 (small) or 20 000 calls; medians. Built against build/lib/libgemmtune.a:
//   g++ -O3 -std=c++20 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma -Iinclude -Isrc \
//     probe-kernels.cc build/lib/libgemmtune.a -lxsmm -lxsmmnoblas -lpthread -ldl -lm -lrt
//   ./a.out pairs      (probe-pairs.txt: the pairs kernel against the AVX-512 tile kernel)
//   ./a.out rows-dots  (probe-rows-dots.txt: the rows-dots kernel against the rows kernel)
#include <libxsmm.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "backends/cpu/cpu_kernels.h"
using namespace gemmtune::cpu;
using clk = std::chrono::steady_clock;
constexpr gemmtune::DType f32 = gemmtune::DType::f32;

template <class F>
double ns_per_call(F&& f, int reps) {
  auto t0 = clk::now();
  for (int i = 0; i < reps; ++i) f();
  return std::chrono::duration<double, std::nano>(clk::now() - t0).count() / reps;
}

// `before` and `after` (our kernels) and libxsmm on m × n × k, A and B row-major.
void compare(int m, int n, int k, CpuGemmFn before, const char* before_name, CpuGemmFn after, const char* after_name,
             const char* tiles) {
  if (!before || !after) return (void)std::printf("%dx%dx%d: no kernel\n", m, n, k);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> a(m * k), b(k * n), c1(m * n), c2(m * n), c3(m * n);
  for (auto& x : a) x = d(rng);
  for (auto& x : b) x = d(rng);
  CpuGemmParams P;
  P.m = m, P.n = n, P.k = k, P.a_rs = k, P.a_ks = 1, P.b_ks = n, P.b_cs = 1, P.ldc = n;
  float alpha = 1, beta = 0;
  int flags = LIBXSMM_GEMM_FLAG_NONE, pf = LIBXSMM_PREFETCH_NONE;
  libxsmm_blasint lm = n, ln = m, lk = k, lda = n, ldb = k, ldc = n;
  libxsmm_smmfunction x = libxsmm_smmdispatch(lm, ln, lk, &lda, &ldb, &ldc, &alpha, &beta, &flags, &pf);
  const int reps = m * n * k < 20000 ? 200000 : 20000;
  std::vector<double> t1, t2, t3;
  for (int round = 0; round < 21; ++round) {
    t1.push_back(ns_per_call([&] { before(P, a.data(), b.data(), c1.data()); asm volatile("" ::: "memory"); }, reps));
    t2.push_back(ns_per_call([&] { x(b.data(), a.data(), c2.data()); asm volatile("" ::: "memory"); }, reps));
    t3.push_back(ns_per_call([&] { after(P, a.data(), b.data(), c3.data()); asm volatile("" ::: "memory"); }, reps));
  }
  std::sort(t1.begin(), t1.end()), std::sort(t2.begin(), t2.end()), std::sort(t3.begin(), t3.end());
  double diff = 0;
  for (int i = 0; i < m * n; ++i) diff = std::max(diff, double(std::abs(c3[i] - c2[i])));
  std::printf("%2dx%2dx%3d %s: %s %6.1f ns  libxsmm %6.1f ns  %s %6.1f ns  libxsmm/%s %.2f  %s/%s %.2f  maxdiff %.1e\n", m,
              n, k, tiles, before_name, t1[10], t2[10], after_name, t3[10], after_name, t2[10] / t3[10], before_name,
              after_name, t1[10] / t3[10], diff);
}

int main(int argc, char** argv) {
  libxsmm_init();
  const bool pairs = argc > 1 && std::strcmp(argv[1], "pairs") == 0;
  if (pairs) {
    const int shapes[][3] = {{8, 8, 8}, {13, 7, 29}, {4, 8, 8}, {16, 8, 16}, {5, 3, 9},
                             {24, 8, 24}, {1, 8, 64}, {2, 4, 100}, {16, 8, 256}};
    for (auto& s : shapes) {
      compare(s[0], s[1], s[2], find_cpu_kernel(kIsaAvx512, kAlgoDirectTile, f32, f32, s[0], 1), "tile",
              find_cpu_kernel(kIsaAvx512, kAlgoDirectPairs, f32, f32, s[0], 1), "pairs", "");
    }
    return 0;
  }
  // (m, n, k, rows tile's rows and vectors, rows-dots tile's rows; its vectors: n's whole ones)
  const int shapes[][6] = {{17, 33, 65, 6, 3, 8}, {17, 33, 65, 6, 3, 12}, {17, 33, 65, 6, 3, 4},
                           {32, 33, 32, 8, 3, 8}, {20, 49, 40, 6, 4, 6},  {20, 49, 40, 6, 4, 8},
                           {64, 18, 64, 8, 2, 8}, {64, 18, 64, 8, 2, 16}, {9, 20, 100, 8, 2, 8}};
  for (auto& s : shapes) {
    char tiles[64];
    std::snprintf(tiles, sizeof tiles, "rows %dx%d, rows-dots %dx%d", s[3], s[4], s[5], s[1] / 16);
    compare(s[0], s[1], s[2], find_cpu_kernel(kIsaAvx512, kAlgoDirectRows, f32, f32, s[3], s[4]), "rows",
            find_cpu_kernel(kIsaAvx512, kAlgoDirectRowsDots, f32, f32, s[5], s[1] / 16), "rows-dots", tiles);
  }
}
