// The packed kernel (src/backends/cpu/kernels/packed.h) against an edited copy of it and
// oneDNN's dnnl_sgemm, all three in one process, rounds interleaved: a kernel edit read without
// the ±3 % that separates processes on the development VM (docs/measuring.md). Built by CMake
// as an A/A (the shipped kernel on both sides: the harness's own spread); ab.sh builds it with
// an edited copy and runs it.
//
//   cpu_packed_ab M N K [threads] [block_m] [block_n] [block_k]     f32, row-major nn
//
// Prints the median time of each and the medians of oneDNN's time over each of ours, round by
// round. Each round runs the three in a rotated order, each after one untimed call. The tile is MR × NV vectors (-DPACKED_AB_MR, -DPACKED_AB_NV; default 6 × 2), AVX2
// unless -DPACKED_AB_AVX512. Set OMP_NUM_THREADS to the threads (oneDNN's OpenMP pool) and
// DNNL_MAX_CPU_ISA to the level compared (AVX2 or AVX512_CORE).
#ifdef PACKED_AB_AVX512
#define GEMMTUNE_ISA_NAMESPACE avx512
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 2
#else
#define GEMMTUNE_ISA_NAMESPACE avx2
#define GEMMTUNE_VECTOR_BYTES 32
#define GEMMTUNE_ISA_LEVEL 1
#endif
#ifndef PACKED_AB_MR
#define PACKED_AB_MR 6
#define PACKED_AB_NV 2
#endif
#include "backends/cpu/kernels/packed.h"
#ifdef PACKED_AB_EXPERIMENT
// The edited copy, its anonymous namespace renamed `exp` and its includes made absolute (ab.sh).
#include PACKED_AB_EXPERIMENT
#endif

#include <dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using namespace gemmtune;
using Shipped = cpu::GEMMTUNE_ISA_NAMESPACE::PackedGemm<DType::f32, DType::f32, PACKED_AB_MR, PACKED_AB_NV>;
#ifdef PACKED_AB_EXPERIMENT
using Edited = cpu::GEMMTUNE_ISA_NAMESPACE::exp::PackedGemm<DType::f32, DType::f32, PACKED_AB_MR, PACKED_AB_NV>;
#else
using Edited = Shipped;
#endif

// One untimed call first: the first call after another kernel's finds the caches holding that
// one's buffers, and it read 4 % slower in an A/A of this probe when it was timed.
template <class F>
double mean_us(F&& f, int calls) {
  f();
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < calls; ++r) f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / calls;
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: cpu_packed_ab M N K [threads] [block_m] [block_n] [block_k]\n");
    return 2;
  }
  const long m = std::atol(argv[1]), n = std::atol(argv[2]), k = std::atol(argv[3]);
  cpu::CpuGemmParams P;
  P.m = m, P.n = n, P.k = k;
  P.a_rs = k, P.a_ks = 1, P.b_ks = n, P.b_cs = 1, P.ldc = n;
  P.threads = argc > 4 ? std::atoi(argv[4]) : 1;
  P.grid_m = P.threads, P.grid_n = 1;
  P.block_m = argc > 5 ? std::atol(argv[5]) : 16 * PACKED_AB_MR;
  P.block_n = argc > 6 ? std::atol(argv[6]) : 8 * PACKED_AB_NV * GEMMTUNE_VECTOR_BYTES / 4;
  P.block_k = argc > 7 ? std::atol(argv[7]) : 512;
  if (m <= 0 || n <= 0 || k <= 0 || P.threads <= 0 || P.block_m % PACKED_AB_MR != 0 ||
      P.block_n % (PACKED_AB_NV * GEMMTUNE_VECTOR_BYTES / 4) != 0 || P.block_k <= 0) {
    std::fprintf(stderr, "cpu_packed_ab: sizes must be positive, block_m a multiple of %d, block_n of %d\n",
                 PACKED_AB_MR, PACKED_AB_NV * GEMMTUNE_VECTOR_BYTES / 4);
    return 2;
  }
  std::vector<float> a(std::size_t(m * k)), b(std::size_t(k * n));
  std::vector<float> c_shipped(std::size_t(m * n)), c_edited(c_shipped.size()), c_onednn(c_shipped.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) - 3;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(i % 5) - 2;
  auto shipped = [&] { Shipped::run(P, a.data(), b.data(), c_shipped.data()); };
  auto edited = [&] { Edited::run(P, a.data(), b.data(), c_edited.data()); };
  auto onednn = [&] { dnnl_sgemm('N', 'N', m, n, k, 1.f, a.data(), k, b.data(), n, 0.f, c_onednn.data(), n); };
  shipped(), edited(), onednn();
  // Small integers: every sum is exact, so the three agree to the bit.
  for (std::size_t i = 0; i < c_shipped.size(); ++i) {
    if (c_shipped[i] != c_onednn[i] || c_edited[i] != c_onednn[i]) {
      std::fprintf(stderr, "wrong at %zu: shipped %g, edited %g, oneDNN %g\n", i, double(c_shipped[i]),
                   double(c_edited[i]), double(c_onednn[i]));
      return 1;
    }
  }
  const int calls = std::max(1, int(2e8 / (2.0 * double(m) * double(n) * double(k))));
  // Each round runs the three in another order, so that none always follows the same one.
  std::vector<double> s, e, d, over_s, over_e;
  for (int round = 0; round < 21; ++round) {
    double t[3];
    for (int i = 0; i < 3; ++i) {
      const int which = (round + i) % 3;
      t[which] = which == 0 ? mean_us(shipped, calls) : which == 1 ? mean_us(edited, calls) : mean_us(onednn, calls);
    }
    s.push_back(t[0]), e.push_back(t[1]), d.push_back(t[2]);
    over_s.push_back(t[2] / t[0]);
    over_e.push_back(t[2] / t[1]);
  }
  std::printf("%ldx%ldx%ld thr=%d: shipped %.1f us, edited %.1f us, oneDNN %.1f us; oneDNN/shipped %.3f, oneDNN/edited %.3f\n",
              m, n, k, P.threads, median(s), median(e), median(d), median(over_s), median(over_e));
  return 0;
}
