// Probe: the rows kernel's and the rows-dots kernel's last rows. m is not a multiple of the
// tile's rows; each kernel called straight through its function pointer (no dispatch), against
// libxsmm's JIT kernel on the same shape, 21 interleaved rounds; medians. Built against
// build/lib/libgemmtune.a:
//   g++ -O3 -std=c++20 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma -Iinclude -Isrc \
//     probe-tails.cc build/lib/libgemmtune.a -lxsmm -lxsmmnoblas -lpthread -ldl -lm -lrt
#include <libxsmm.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
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

struct Case {
  int m, n, k, algo, mr, nv;
};

int main() {
  libxsmm_init();
  const Case cases[] = {
      {17, 33, 65, kAlgoDirectRowsDots, 8, 2}, {17, 33, 65, kAlgoDirectRowsDots, 12, 2},
      {17, 33, 65, kAlgoDirectRowsDots, 4, 2}, {17, 33, 65, kAlgoDirectRows, 6, 3},
      {17, 33, 65, kAlgoDirectRows, 8, 3},     {17, 32, 65, kAlgoDirectRows, 8, 2},
      {9, 20, 100, kAlgoDirectRows, 8, 2},     {9, 20, 100, kAlgoDirectRowsDots, 8, 1},
      {33, 48, 48, kAlgoDirectRows, 8, 3},     {25, 64, 64, kAlgoDirectRows, 8, 4},
      {13, 16, 64, kAlgoDirectRows, 8, 1},     {20, 49, 40, kAlgoDirectRowsDots, 8, 3},
      {50, 32, 50, kAlgoDirectRows, 12, 2},    {7, 64, 64, kAlgoDirectRows, 4, 4},
  };
  std::printf("m x n x k   kernel          ours ns  libxsmm ns  libxsmm/ours  maxdiff\n");
  for (const Case& s : cases) {
    CpuGemmFn ours = find_cpu_kernel(kIsaAvx512, s.algo, f32, f32, s.mr, s.nv);
    const char* name = s.algo == kAlgoDirectRows ? "rows" : "rows-dots";
    if (!ours) {
      std::printf("%dx%dx%d %s %dx%d: no kernel\n", s.m, s.n, s.k, name, s.mr, s.nv);
      continue;
    }
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> d(-1, 1);
    std::vector<float> a(s.m * s.k), b(s.k * s.n), c1(s.m * s.n), c2(s.m * s.n);
    for (auto& x : a) x = d(rng);
    for (auto& x : b) x = d(rng);
    CpuGemmParams P;
    P.m = s.m, P.n = s.n, P.k = s.k, P.a_rs = s.k, P.a_ks = 1, P.b_ks = s.n, P.b_cs = 1, P.ldc = s.n;
    float alpha = 1, beta = 0;
    int flags = LIBXSMM_GEMM_FLAG_NONE, pf = LIBXSMM_PREFETCH_NONE;
    libxsmm_blasint lm = s.n, ln = s.m, lk = s.k, lda = s.n, ldb = s.k, ldc = s.n;
    libxsmm_smmfunction x = libxsmm_smmdispatch(lm, ln, lk, &lda, &ldb, &ldc, &alpha, &beta, &flags, &pf);
    const int reps = 20000;
    std::vector<double> t1, t2;
    for (int round = 0; round < 21; ++round) {
      t1.push_back(ns_per_call([&] { ours(P, a.data(), b.data(), c1.data()); asm volatile("" ::: "memory"); }, reps));
      t2.push_back(ns_per_call([&] { x(b.data(), a.data(), c2.data()); asm volatile("" ::: "memory"); }, reps));
    }
    std::sort(t1.begin(), t1.end()), std::sort(t2.begin(), t2.end());
    double diff = 0;
    for (int i = 0; i < s.m * s.n; ++i) diff = std::max(diff, double(std::abs(c1[i] - c2[i])));
    std::printf("%2dx%2dx%3d  %-9s %2dx%d  %7.1f  %10.1f  %12.2f  %.1e\n", s.m, s.n, s.k, name, s.mr, s.nv, t1[10],
                t2[10], t2[10] / t1[10], diff);
  }
}
