// Alternates the stream kernel and a variant of its header (stream_var.h, written by mk.sh with
// its symbols suffixed _v) at M x 4096 x 4096, f32 nn (W stored k x n), two threads, 25 rounds,
// and prints both medians and base/variant round by round. Built by mk.sh in this folder.
#define GEMMTUNE_ISA_NAMESPACE avx512
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 2
#include "cpu_stream_gemm.h"
#include "stream_var.h"  // written by mk.sh
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
using namespace gemmtune::cpu;
using namespace gemmtune;
int main(int argc, char** argv) {
  const int m = argc > 1 ? std::atoi(argv[1]) : 16, n = 4096, k = 4096;
  const int bk = argc > 2 ? std::atoi(argv[2]) : 256;
  const int bkv = argc > 3 ? std::atoi(argv[3]) : bk;
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(n) * k), c(std::size_t(m) * n);
  std::mt19937 g(1); std::uniform_real_distribution<float> d(-1, 1);
  for (auto& x : a) x = d(g); for (auto& x : b) x = d(g);
  CpuGemmParams P; P.m = m; P.n = n; P.k = k; P.a_rs = k; P.a_ks = 1; P.b_ks = n; P.b_cs = 1; P.ldc = n;
  P.threads = 2; P.block_k = bk;
  CpuGemmParams V = P; V.block_k = bkv;
  auto f0 = &avx512::gemm_direct_stream<DType::f32, DType::f32, MR_, NV_>;
  auto f1 = &avx512::gemm_direct_stream_v<DType::f32, DType::f32, MRV_, NVV_>;
  double err = 0;
  f1(V, a.data(), b.data(), c.data());
  for (int i = 0; i < m; i += 3) for (int j = 0; j < n; j += 97) { double s = 0; for (int p = 0; p < k; ++p) s += double(a[i*k+p]) * b[std::size_t(p)*n+j]; err = std::max(err, std::abs(s - c[i*n+j])); }
  std::vector<double> t0, t1, ratio;
  for (int r = 0; r < 25; ++r) {
    auto s = std::chrono::steady_clock::now();
    f0(P, a.data(), b.data(), c.data());
    auto e = std::chrono::steady_clock::now();
    f1(V, a.data(), b.data(), c.data());
    auto e2 = std::chrono::steady_clock::now();
    t0.push_back(std::chrono::duration<double, std::micro>(e - s).count());
    t1.push_back(std::chrono::duration<double, std::micro>(e2 - e).count());
    ratio.push_back(t0.back() / t1.back());
  }
  std::sort(t0.begin(), t0.end()); std::sort(t1.begin(), t1.end()); std::sort(ratio.begin(), ratio.end());
  std::printf("m=%d base %dx%d bk=%d %.0f us | variant %dx%d bk=%d %.0f us | base/variant by round %.3f (q1 %.3f q3 %.3f) err %.2g\n",
              m, MR_, NV_, bk, t0[12], MRV_, NVV_, bkv, t1[12], ratio[12], ratio[6], ratio[18], err);
}
