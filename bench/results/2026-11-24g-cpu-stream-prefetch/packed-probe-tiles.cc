// Probe (2026-11-24g): packed micro tiles 6x4, 4x6, 8x3 at M = 100/128/256, N = K = 4096, nt (B contiguous
// along k). Built from the repository root, with the 4 x 6 tile instantiated here only:
//   g++ -O3 -ffp-contract=fast -fwrapv -fno-math-errno -std=c++20 -mavx512f -mavx512bw -mavx512vl -mavx512dq \
//     -mavx2 -mfma -mf16c -mprefer-vector-width=512 -Isrc/backends/cpu -Iinclude -Isrc THIS.cc build/lib/libgemmtune.a -lpthread
#define GEMMTUNE_ISA_NAMESPACE avx512
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 2
#include "cpu_packed_gemm.h"
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>
using namespace gemmtune::cpu;
using namespace gemmtune;
template <int MR, int NV>
double time_it(CpuGemmParams P, const float* a, const float* b, float* c, int reps) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto s = std::chrono::steady_clock::now();
    avx512::PackedGemm<DType::f32, DType::f32, MR, NV>::run(P, a, b, c);
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
int main() {
  const int n = 4096, k = 4096;
  std::vector<float> a(256 * k), b(std::size_t(n) * k), c(256 * n);
  std::mt19937 g(1); std::uniform_real_distribution<float> d(-1, 1);
  for (auto& x : a) x = d(g); for (auto& x : b) x = d(g);
  for (int m : {100, 128, 256}) {
    CpuGemmParams P; P.m = m; P.n = n; P.k = k; P.a_rs = k; P.a_ks = 1; P.b_ks = 1; P.b_cs = k; P.ldc = n;
    P.threads = 2; P.grid_m = 1; P.grid_n = 2;
    for (int kc : {512, 1024}) {
      P.block_k = kc;
      for (int round = 0; round < 2; ++round) {
        P.block_m = 96; P.block_n = 512; double t64 = time_it<6, 4>(P, a.data(), b.data(), c.data(), 7);
        P.block_m = 96; P.block_n = 576; double t46 = time_it<4, 6>(P, a.data(), b.data(), c.data(), 7);
        P.block_m = 96; P.block_n = 576; double t83 = time_it<8, 3>(P, a.data(), b.data(), c.data(), 7);
        P.block_m = 128; P.block_n = 576; double t46b = time_it<4, 6>(P, a.data(), b.data(), c.data(), 7);
        double fl = 2.0 * m * n * k / 1e3;
        std::printf("m=%d kc=%d  6x4 %.0f GF/s  4x6 %.0f  8x3 %.0f  4x6(bm128) %.0f\n", m, kc, fl / t64, fl / t46, fl / t83, fl / t46b);
        std::fflush(stdout);
      }
    }
  }
}
