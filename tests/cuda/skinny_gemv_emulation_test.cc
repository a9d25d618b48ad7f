// gemm_gemv.cuh (the skinny family's kernel=gemv) run on the host, one std::thread per CUDA
// thread and the CTAs one after another, checked element by element against a float64
// reference: every input and output dtype, m 1 to 8 (below and at the compiled M), odd n and
// k (k's last vector partial, more slices than steps), A from shared memory and through L1, one
// and two stages, split k finished by the last warp, grids small enough that warps loop over
// groups, alpha/beta, and columns of C past n left alone. Inputs are small integers, so the
// f32 sums are exact and every element compares bit for bit. Runs without a GPU.
#include <gtest/gtest.h>

#include <barrier>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include "backends/cuda/skinny_gemv.h"

// --- The CUDA built-ins the kernel uses, for host threads. ---
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define GV_HOST_EMULATION 1
struct GvDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local GvDim3 threadIdx, blockIdx, blockDim, gridDim;
inline float __uint_as_float(unsigned b) { return std::bit_cast<float>(b); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline int atomicAdd(int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

namespace gv_emu {
// A warp's 32 threads meet at a barrier to exchange values (the shuffles).
struct Warp {
  std::barrier<> meet{32};
  unsigned long long slot[32];
};
struct Block {
  std::barrier<>* all = nullptr;
  Warp* warps = nullptr;
  unsigned char* shared = nullptr;
};
inline thread_local Block block;
inline unsigned char* shared_bytes() { return block.shared; }
// Round to nearest even, as cvt.rn.bf16.f32 and cvt.rn.f16.f32.
inline unsigned short bf16_bits(float v) {
  const unsigned b = std::bit_cast<unsigned>(v);
  return (unsigned short)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
inline unsigned short f16_bits(float v) { return std::bit_cast<unsigned short>(static_cast<_Float16>(v)); }
inline float f16_value(unsigned short b) { return static_cast<float>(std::bit_cast<_Float16>(b)); }
template <class T>
T exchange(T v, int source_lane) {
  Warp& w = block.warps[threadIdx.x / 32];
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  w.slot[threadIdx.x & 31] = bits;
  w.meet.arrive_and_wait();
  T out;
  std::memcpy(&out, &w.slot[source_lane], sizeof out);
  w.meet.arrive_and_wait();
  return out;
}
}  // namespace gv_emu

template <class T>
T __shfl_xor_sync(unsigned, T v, int offset) {
  return gv_emu::exchange(v, int(threadIdx.x & 31) ^ offset);
}
template <class T>
T __shfl_sync(unsigned, T v, int lane) {
  return gv_emu::exchange(v, lane);
}
inline void __syncwarp() { gv_emu::block.warps[threadIdx.x / 32].meet.arrive_and_wait(); }
inline void __syncthreads() { gv_emu::block.all->arrive_and_wait(); }

#include "backends/cuda/kernels/gemm_gemv.cuh"

namespace gemmtune::cuda {
namespace {

// Runs `body` as a grid of gx × gy CTAs of `threads` threads each, CTA by CTA.
template <class F>
void launch(F body, unsigned gx, unsigned gy, unsigned threads, std::size_t shared_bytes) {
  for (unsigned by = 0; by < gy; ++by) {
    for (unsigned bx = 0; bx < gx; ++bx) {
      std::vector<unsigned char> shared(shared_bytes + 16);
      std::barrier<> all(threads);
      std::unique_ptr<gv_emu::Warp[]> warps(new gv_emu::Warp[threads / 32]);
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
          threadIdx = {t, 0, 0};
          blockIdx = {bx, by, 0};
          blockDim = {threads, 1, 1};
          gridDim = {gx, gy, 1};
          gv_emu::block = {&all, warps.get(), shared.data()};
          body();
        });
      }
      for (std::thread& thread : pool) thread.join();
    }
  }
}

// The kernel's template parameters, as the backend's macros name them.
struct Variant {
  int m_compiled, rows_b, steps, stages;
  bool a_shared;
};

// One run: the problem, the launch and the scalars.
struct GemvRun {
  long long m, n, k, ld;  // ld: lda = ldb, k rounded up to 16 bytes or more (poisoned past k)
  int warps, split, grid_x;
  float alpha, beta;
};

// What a run found: elements compared, how many were wrong, counters left set.
struct Outcome {
  long long checked = 0, wrong = 0, counters_left = 0;
};

// Stored bits and values of the element types (IN 0 f16, 1 bf16, 3 s8; OUT 0 f32, 1 f16, 2 bf16, 3 s32).
double input_value(int in, unsigned bits) {
  if (in == 1) return std::bit_cast<float>(bits << 16);
  if (in == 0) return gv_emu::f16_value((unsigned short)bits);
  return (signed char)bits;
}
template <int OUT, class O>
double output_value(O o) {
  if constexpr (OUT == 0) return std::bit_cast<float>(o);
  else if constexpr (OUT == 3) return o;
  else if constexpr (OUT == 2) return std::bit_cast<float>((unsigned)o << 16);
  else return gv_emu::f16_value((unsigned short)o);
}
template <int OUT, class O>
O output_bits(double v) {
  if constexpr (OUT == 0) return (float)v;
  else if constexpr (OUT == 3) return (O)(long long)v;
  else if constexpr (OUT == 2) return (O)gv_emu::bf16_bits((float)v);
  else return (O)gv_emu::f16_bits((float)v);
}

// Hooks a test uses to plant a fault: before the launch (counters) and after it (C).
struct Faults {
  int preset_counter = 0;        // the first group's counter before the launch (0: none planted)
  long long corrupt_c_at = -1;   // an element of C changed after the launch (-1: none)
};

// Runs variant V on random small-integer operands (never zero; A's and B's padding poisoned:
// NaN, 127 for s8) and compares every element of C, the columns past n included, against
// alpha·A·Bᵀ + beta·C in float64 rounded once to OUT.
template <int IN, int OUT, int M, int R, int U, int S, bool SH>
Outcome run_and_check(const GemvRun& r, const Faults& faults = {}) {
  typedef typename GvIn<IN>::elem_t E;
  typedef typename GvOut<OUT>::type O;
  typedef typename GvIn<IN>::acc_t Acc;
  std::mt19937 rng(unsigned(r.n * 31 + r.k + r.m));
  const auto element = [&](bool pad) -> E {
    int v = int(rng() % 3) + 1;
    if (rng() & 1) v = -v;
    if constexpr (IN == 3) return pad ? E(127) : E(v);
    else if constexpr (IN == 1) return pad ? E(0xffff) : E(gv_emu::bf16_bits(float(v)));
    else return pad ? E(0xffff) : E(gv_emu::f16_bits(float(v)));
  };
  std::vector<E> a(std::size_t(r.m * r.ld)), b(std::size_t(r.n * r.ld));
  for (long long i = 0; i < r.m * r.ld; ++i) a[i] = element(i % r.ld >= r.k);
  for (long long i = 0; i < r.n * r.ld; ++i) b[i] = element(i % r.ld >= r.k);
  const long long ldc = r.n + 3;
  std::vector<O> c(std::size_t(r.m * ldc));
  for (O& x : c) {
    const int v = int(rng() % 5) - 2;
    x = output_bits<OUT, O>(v == 0 ? 1 : v);
    if (r.beta == 0) std::memset(&x, 0xff, sizeof x);  // must not be read
  }
  const std::vector<O> before = c;

  const long long steps = (r.k + 32 * GvIn<IN>::kPerVector - 1) / (32 * GvIn<IN>::kPerVector);
  const long long groups = (r.n + R - 1) / R;
  std::vector<Acc> workspace(std::size_t(r.split * groups * gv_pow2_ceil(R * M) + 1));
  std::vector<int> counters(std::size_t(groups), 0);
  counters[0] = faults.preset_counter;
  const std::size_t shared = SH ? std::size_t(M * ((steps + r.split - 1) / r.split) * 512) : 0;
  launch([&] {
    gv_gemv<IN, OUT, M, R, U, S, SH>(a.data(), b.data(), c.data(), workspace.data(), counters.data(), r.m, r.n, r.k,
                                    r.ld, r.ld, ldc, r.alpha, r.beta, /*b_early=*/1);
  }, unsigned(r.grid_x), unsigned(r.split), unsigned(r.warps * 32), shared);
  if (faults.corrupt_c_at >= 0) c[std::size_t(faults.corrupt_c_at)] = output_bits<OUT, O>(12345);

  Outcome out;
  for (long long i = 0; i < r.m; ++i) {
    for (long long j = 0; j < ldc; ++j) {
      const std::size_t at = std::size_t(i * ldc + j);
      O want = before[at];
      if (j < r.n) {
        double dot = 0;
        for (long long kk = 0; kk < r.k; ++kk) {
          using U8 = std::make_unsigned_t<E>;
          dot += input_value(IN, unsigned(U8(a[i * r.ld + kk]))) * input_value(IN, unsigned(U8(b[j * r.ld + kk])));
        }
        const double old = r.beta != 0 ? output_value<OUT>(before[at]) : 0.0;
        want = output_bits<OUT, O>(IN == 3 ? dot + old : double(r.alpha) * dot + double(r.beta) * old);
      }
      ++out.checked;
      if (std::memcmp(&c[at], &want, sizeof want) != 0) ++out.wrong;
    }
  }
  for (int left : counters) out.counters_left += left != 0;
  return out;
}

// The KernelConfig that names variant V with `run`'s warps and split, and what the backend
// makes of it: the same template parameters (so these runs are of configs the backend compiles).
template <int M, int R, int U, int S, bool SH>
void expect_backend_instance(DType in, const GemvRun& r) {
  KernelConfig c;
  c.kernel = kKernelGemv;
  c.block_m = M;
  c.warps = r.warps;
  c.block_n = R * r.warps;
  c.block_k = U * (in == DType::s8 ? 512 : 256);
  c.stages = S;
  c.split_k = r.split;
  c.a_source = SH ? 0 : 1;
  const Problem p = *Problem::create(r.m, r.n, r.k, in, "nt");
  const GemvInstance g = gemv_instance(p, c);
  EXPECT_EQ(g.rows_a, M);
  EXPECT_EQ(g.rows_b, R);
  EXPECT_EQ(g.steps, U);
  EXPECT_EQ(g.stages, S);
  EXPECT_EQ(g.a_shared, SH);
  EXPECT_EQ(g.split_k, r.split);
}

long long g_checked = 0;  // elements compared by all the tests, printed at the end of each

template <int IN, int OUT, int M, int R, int U, int S, bool SH>
void expect_exact(DType in, const GemvRun& r) {
  SCOPED_TRACE("M" + std::to_string(M) + " r" + std::to_string(R) + "u" + std::to_string(U) + "s" + std::to_string(S) +
               (SH ? ".sh" : ".l1") + " m=" + std::to_string(r.m) + " n=" + std::to_string(r.n) +
               " k=" + std::to_string(r.k) + " w" + std::to_string(r.warps) + " k" + std::to_string(r.split) +
               " gx" + std::to_string(r.grid_x));
  expect_backend_instance<M, R, U, S, SH>(in, r);
  const Outcome o = run_and_check<IN, OUT, M, R, U, S, SH>(r);
  EXPECT_EQ(o.wrong, 0) << "of " << o.checked;
  EXPECT_EQ(o.counters_left, 0) << "counters must be back at zero for the next launch";
  EXPECT_EQ(o.checked, r.m * (r.n + 3));
  g_checked += o.checked;
}

TEST(SkinnyGemvEmulation, TheDefaultRowsInBf16FromOneRowToEight) {
  g_checked = 0;
  // r2u4s1.sh, r4u2s1.l1, r8u1s2.l1 (the default list); k 1100 leaves a partial last vector and
  // 5 steps over 3 slices; 2 CTAs of 2 warps loop over the groups.
  expect_exact<1, 2, 1, 2, 4, 1, true>(DType::bf16, {1, 71, 1100, 1104, 2, 3, 2, 1.0f, 0.0f});
  expect_exact<1, 2, 2, 2, 4, 1, true>(DType::bf16, {2, 35, 1300, 1304, 2, 2, 2, 0.5f, -2.0f});
  expect_exact<1, 2, 4, 4, 2, 1, false>(DType::bf16, {3, 70, 1100, 1104, 2, 3, 2, 1.0f, 1.0f});
  expect_exact<1, 2, 4, 4, 2, 1, false>(DType::bf16, {4, 33, 520, 520, 1, 1, 3, 1.0f, 0.0f});
  expect_exact<1, 2, 8, 4, 2, 1, false>(DType::bf16, {5, 70, 1100, 1104, 2, 3, 2, 0.5f, -2.0f});
  expect_exact<1, 2, 8, 2, 4, 1, true>(DType::bf16, {6, 45, 777, 784, 2, 2, 1, 1.0f, 0.0f});
  expect_exact<1, 2, 8, 4, 2, 1, true>(DType::bf16, {7, 37, 40, 48, 2, 1, 1, 1.0f, 0.0f});
  expect_exact<1, 2, 1, 8, 1, 2, false>(DType::bf16, {1, 70, 1100, 1104, 2, 3, 2, 1.0f, 1.0f});
  expect_exact<1, 2, 2, 8, 1, 2, false>(DType::bf16, {2, 51, 2049, 2056, 1, 4, 2, 1.0f, 0.0f});
  expect_exact<1, 2, 8, 2, 4, 1, true>(DType::bf16, {8, 70, 1100, 1104, 2, 7, 1, 1.0f, 0.0f});
  std::printf("%lld elements of C compared\n", g_checked);
  EXPECT_EQ(g_checked, 1 * 74 + 2 * 38 + 3 * 73 + 4 * 36 + 5 * 73 + 6 * 48 + 7 * 40 + 1 * 73 + 2 * 54 + 8 * 73);
}

TEST(SkinnyGemvEmulation, EveryOutputDtypeAndTwoStages) {
  g_checked = 0;
  expect_exact<1, 0, 4, 4, 2, 2, true>(DType::bf16, {3, 70, 1100, 1104, 2, 3, 2, 0.5f, -2.0f});    // bf16 -> f32
  expect_exact<0, 1, 4, 4, 1, 2, false>(DType::f16, {4, 70, 1100, 1104, 2, 3, 2, 0.5f, -2.0f});    // f16 -> f16
  expect_exact<0, 0, 8, 2, 4, 1, true>(DType::f16, {6, 69, 900, 904, 2, 2, 2, 1.0f, 0.0f});        // f16 -> f32
  expect_exact<1, 2, 8, 4, 2, 2, true>(DType::bf16, {8, 70, 1100, 1104, 2, 7, 1, 1.0f, 0.0f});     // 7 slices of 5 steps
  expect_exact<3, 3, 4, 4, 2, 2, true>(DType::s8, {3, 70, 1100, 1104, 2, 3, 2, 1.0f, 1.0f});       // s8 -> s32, beta 1
  expect_exact<3, 3, 8, 4, 1, 2, false>(DType::s8, {8, 70, 1100, 1104, 2, 2, 2, 1.0f, 0.0f});
  expect_exact<3, 3, 1, 4, 2, 2, true>(DType::s8, {1, 37, 40, 48, 1, 3, 2, 1.0f, 0.0f});           // 3 slices, 1 step
  expect_exact<3, 3, 2, 8, 1, 2, false>(DType::s8, {2, 41, 3001, 3008, 2, 2, 3, 1.0f, 1.0f});
  std::printf("%lld elements of C compared\n", g_checked);
  EXPECT_EQ(g_checked, 3 * 73 + 4 * 73 + 6 * 72 + 8 * 73 + 3 * 73 + 8 * 73 + 1 * 40 + 2 * 44);
}

TEST(SkinnyGemvEmulation, APlantedFaultIsCaught) {
  const GemvRun r{5, 70, 1100, 1104, 2, 3, 2, 0.5f, -2.0f};
  const Outcome clean = run_and_check<1, 2, 8, 4, 2, 1, false>(r);
  EXPECT_EQ(clean.wrong, 0);
  // A counter the previous launch did not set back: its group finishes before every slice is in.
  const Outcome stale = run_and_check<1, 2, 8, 4, 2, 1, false>(r, {1, -1});
  EXPECT_GT(stale.wrong, 0);
  EXPECT_LE(stale.wrong, r.m * 4);  // the first group's 4 columns of each row
  // One element of C wrong after the run.
  const Outcome corrupt = run_and_check<1, 2, 8, 4, 2, 1, false>(r, {0, (r.n + 3) * 2 + 17});
  EXPECT_EQ(corrupt.wrong, 1);
  // A write past n, into the columns C keeps.
  const Outcome past_n = run_and_check<1, 2, 8, 4, 2, 1, false>(r, {0, r.n + 1});
  EXPECT_EQ(past_n.wrong, 1);
}

}  // namespace
}  // namespace gemmtune::cuda
