// Probe: the pairs kernel as built (through find_cpu_kernel) against the tile kernel and
// libxsmm's JIT kernel, each called through its pointer, interleaved in rounds.
#include <libxsmm.h>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#include <algorithm>
#include "backends/cpu/cpu_kernels.h"
using namespace gemmtune::cpu;
using clk = std::chrono::steady_clock;
template <class F> double ns_per_call(F&& f, int reps) {
  auto t0 = clk::now();
  for (int i = 0; i < reps; ++i) f();
  return std::chrono::duration<double, std::nano>(clk::now() - t0).count() / reps;
}
void run(int m, int n, int k) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> a(m * k), b(k * n), c(m * n), c2(m * n), c3(m * n);
  for (auto& x : a) x = d(rng);
  for (auto& x : b) x = d(rng);
  CpuGemmParams P;
  P.m = m; P.n = n; P.k = k; P.a_rs = k; P.a_ks = 1; P.b_ks = n; P.b_cs = 1; P.ldc = n;
  CpuGemmFn tile = find_cpu_kernel(kIsaAvx512, kAlgoDirectTile, gemmtune::DType::f32, gemmtune::DType::f32, m, 1);
  CpuGemmFn pairs = find_cpu_kernel(kIsaAvx512, kAlgoDirectPairs, gemmtune::DType::f32, gemmtune::DType::f32, m, 1);
  float alpha = 1, beta = 0; int flags = LIBXSMM_GEMM_FLAG_NONE, pf = LIBXSMM_PREFETCH_NONE;
  libxsmm_blasint lm = n, ln = m, lk = k, lda = n, ldb = k, ldc = n;
  libxsmm_smmfunction x = libxsmm_smmdispatch(lm, ln, lk, &lda, &ldb, &ldc, &alpha, &beta, &flags, &pf);
  const int reps = 200000;
  std::vector<double> t1, t2, t3;
  for (int round = 0; round < 21; ++round) {
    t1.push_back(ns_per_call([&] { tile(P, a.data(), b.data(), c.data()); asm volatile("" ::: "memory"); }, reps));
    t2.push_back(ns_per_call([&] { x(b.data(), a.data(), c2.data()); asm volatile("" ::: "memory"); }, reps));
    t3.push_back(ns_per_call([&] { pairs(P, a.data(), b.data(), c3.data()); asm volatile("" ::: "memory"); }, reps));
  }
  std::sort(t1.begin(), t1.end()); std::sort(t2.begin(), t2.end()); std::sort(t3.begin(), t3.end());
  double err = 0; for (size_t i = 0; i < c.size(); ++i) err = std::max(err, double(std::abs(c3[i] - c2[i])));
  std::printf("%2dx%2dx%3d: tile %6.1f ns  libxsmm %6.1f ns  pairs %6.1f ns  libxsmm/pairs %.2f  tile/pairs %.2f  maxdiff %.1e\n",
              m, n, k, t1[10], t2[10], t3[10], t2[10] / t3[10], t1[10] / t3[10], err);
}
int main() {
  libxsmm_init();
  int shapes[][3] = {{8, 8, 8}, {13, 7, 29}, {4, 8, 8}, {16, 8, 16}, {5, 3, 9}, {24, 8, 24}, {1, 8, 64}, {2, 4, 100}, {16, 8, 256}};
  for (auto& s : shapes) run(s[0], s[1], s[2]);
}
