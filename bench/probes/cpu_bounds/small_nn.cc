// Where an AVX2 f32 nn product of a few hundred per side loses time next to oneDNN: a 6 × 16
// register tile (the packed kernel's AVX2 tile) over B packed into 16-wide panels, with A
// either packed into 6-row panels first (the packed kernel's scheme) or broadcast straight
// from its rows (no A pack: what oneDNN's AVX2 sgemm does with the operand it broadcasts).
// On the 2-vCPU Emerald Rapids VM with AVX2 caps, 128 × 256 × 256 (one thread's share of
// 256³ on two) ran 0.89x oneDNN in our kernel (bench/results/2026-11-30c-cpu-small-nn.md).
//
//   small_nn [m] [n] [k] [repeats]      defaults 128 256 256 2000
//
// Times, per product (best of 7 medians of `repeats` calls each, one thread):
//   full, A packed:     B pack + A pack + tiles      (the packed kernel's work)
//   full, A unpacked:   B pack + tiles broadcasting from A's rows
//   tiles only:         the tiles on operands packed once (the kernel's bound at this shape)
//   tiles, A unpacked:  the same, broadcasting from A's rows
//   tiles, C fetched:   with the packed kernel's fetches of C (into L2, then into L1)
//   tiles, fetch N ahead: B's panel and A's fetched into L1 N steps ahead (oneDNN's AVX2
//                       sgemm kernel fetches its packed operands ahead)
//   tiles, k rolled:    the k loop not unrolled (the packed kernel's), and with C fetched
//   tiles, tail whole:  m = 6q + 2 only: the last 2 rows in a whole 6-row tile, as the packed
//                       kernel runs them, or in a 2-row tile of their own
//   B pack, A pack:     each pack alone
// and each one's GFLOP/s (2·m·n·k over its time, m the rows in whole tiles). Built with
// -O3 -mavx2 -mfma: at -O2 the tile's loop ran 25 % slower.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr long MR = 6, NR = 16;

struct Shape {
  long m, n, k;
};

// B (k × n, row-major) into NR-wide panels: panel j holds B[p][j·NR + x] at j·NR·k + p·NR + x.
__attribute__((target("avx2,fma"))) void pack_b(const float* b, const Shape& s, float* out) {
  for (long p = 0; p < s.k; p += 8) {  // 8 rows into every panel at a time (the kernel's order)
    const long pe = std::min(s.k, p + 8);
    for (long j = 0; j < s.n; j += NR) {
      float* panel = out + j * s.k;
      for (long q = p; q < pe; ++q) {
        _mm256_store_ps(panel + q * NR, _mm256_loadu_ps(b + q * s.n + j));
        _mm256_store_ps(panel + q * NR + 8, _mm256_loadu_ps(b + q * s.n + j + 8));
      }
    }
  }
}

// A (m × k, row-major) into MR-row panels: panel i holds A[i·MR + r][p] at i·MR·k + p·MR + r.
// Eight rows' 8 k values transposed at a time, as the kernel's along-k path does.
__attribute__((target("avx2,fma"))) void pack_a(const float* a, const Shape& s, float* out) {
  for (long i = 0; i + MR <= s.m; i += MR) {  // whole panels only, as tiles() runs
    float* panel = out + i * s.k;
    for (long p = 0; p < s.k; p += 8) {
      __m256 r[8];
      for (int x = 0; x < 8; ++x) r[x] = x < MR ? _mm256_loadu_ps(a + (i + x) * s.k + p) : _mm256_setzero_ps();
      const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
      const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
      const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
      const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
      const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
      const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
      const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
      const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
      const __m256 w[8] = {_mm256_permute2f128_ps(u0, u4, 0x20), _mm256_permute2f128_ps(u1, u5, 0x20),
                           _mm256_permute2f128_ps(u2, u6, 0x20), _mm256_permute2f128_ps(u3, u7, 0x20),
                           _mm256_permute2f128_ps(u0, u4, 0x31), _mm256_permute2f128_ps(u1, u5, 0x31),
                           _mm256_permute2f128_ps(u2, u6, 0x31), _mm256_permute2f128_ps(u3, u7, 0x31)};
      // Whole vectors, each overwritten by the next past its 6 lanes (the last one stays short).
      for (int q = 0; q < 8; ++q) {
        float* at = panel + (p + q) * MR;
        if (p + q + 1 < s.k) _mm256_storeu_ps(at, w[q]);
        else _mm256_maskstore_ps(at, _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0), w[q]);
      }
    }
  }
}

// One R × NR tile of C = A·B over all of k (R ≤ MR rows of an MR-row A panel). A's row r,
// step p is at a[r·a_rs + p·a_ks]. kFetchC: the packed kernel's fetches of the tile's rows of C,
// into L2 at the start and into L1 kNearC steps before the end, in two loops split there.
// kRolled: the k loop not unrolled (the packed kernel's `#pragma GCC unroll 1`).
constexpr long kNearC = 32;
template <long R, bool kFetchC, bool kRolled = false, long kAhead = 0>
__attribute__((target("avx2,fma"), always_inline)) inline void tile(long k, const float* a, long a_rs, long a_ks,
                                                                     const float* pb, float* c, long ldc) {
  __m256 acc[R][2];
  for (auto& row : acc) row[0] = row[1] = _mm256_setzero_ps();
  auto step = [&](long p) __attribute__((always_inline)) {
    // kAhead > 0: B's panel and A's fetched into L1 that many steps ahead, a line a step.
    if constexpr (kAhead > 0) {
      _mm_prefetch(reinterpret_cast<const char*>(pb + (p + kAhead) * NR), _MM_HINT_T0);
      if (p % 2 == 0) _mm_prefetch(reinterpret_cast<const char*>(a + (p + kAhead) * a_ks * MR), _MM_HINT_T0);
    }
    const __m256 b0 = _mm256_load_ps(pb + p * NR), b1 = _mm256_load_ps(pb + p * NR + 8);
#pragma GCC unroll 6
    for (long r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r * a_rs + p * a_ks);
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    }
  };
  auto steps = [&](long p0, long p1) __attribute__((always_inline)) {
    if constexpr (kRolled) {
#pragma GCC unroll 1
      for (long p = p0; p < p1; ++p) step(p);
    } else {
#pragma GCC unroll 4
      for (long p = p0; p < p1; ++p) step(p);
    }
  };
  if constexpr (kFetchC) {
    for (long r = 0; r < R; ++r) {
      _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T1);
      _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + NR - 1), _MM_HINT_T1);
    }
    const long split = k > kNearC ? k - kNearC : 0;
    steps(0, split);
    for (long r = 0; r < R; ++r) {
      _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + NR - 1), _MM_HINT_T0);
    }
    steps(split, k);
  } else {
    steps(0, k);
  }
  for (long r = 0; r < R; ++r) {
    _mm256_storeu_ps(c + r * ldc, acc[r][0]);
    _mm256_storeu_ps(c + r * ldc + 8, acc[r][1]);
  }
}

// What the tiles do with the rows past the last whole MR: leave them out (the bound), run a
// whole MR-row tile over them as the packed kernel does (its rows past m are zero in A's panel
// and not stored; here they are computed and stored into a scratch C), or a tile of their own.
enum class Tail { none, whole, own };

// Every tile, B panel by B panel (each in L1 over the tiles of A), A packed or from its rows.
template <bool kFetchC, bool kRolled = false, long kAhead = 0>
__attribute__((target("avx2,fma"))) void tiles(const Shape& s, const float* a, bool packed_a, const float* pb,
                                               float* c, Tail tail = Tail::none, float* scratch = nullptr) {
  const long whole = s.m / MR * MR, left = s.m - whole;
  for (long j = 0; j < s.n; j += NR) {
    for (long i = 0; i < whole; i += MR) {
      if (packed_a) tile<MR, kFetchC, kRolled, kAhead>(s.k, a + i * s.k, 1, MR, pb + j * s.k, c + i * s.n + j, s.n);
      else tile<MR, kFetchC>(s.k, a + i * s.k, s.k, 1, pb + j * s.k, c + i * s.n + j, s.n);
    }
    if (left == 0 || tail == Tail::none) continue;
    // The tail reads A's first rows again: what it computes is timed, not checked.
    if (tail == Tail::whole) tile<MR, kFetchC>(s.k, a, 1, MR, pb + j * s.k, scratch + j, s.n);
    else if (left == 2) tile<2, kFetchC>(s.k, a, 1, MR, pb + j * s.k, scratch + j, s.n);
  }
}

template <class F>
double best_median_us(long repeats, F&& f) {
  std::vector<double> medians;
  for (int round = 0; round < 7; ++round) {
    std::vector<double> us(static_cast<std::size_t>(repeats));
    for (long r = 0; r < repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      us[std::size_t(r)] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
    std::nth_element(us.begin(), us.begin() + repeats / 2, us.end());
    medians.push_back(us[std::size_t(repeats / 2)]);
  }
  return *std::min_element(medians.begin(), medians.end());
}

}  // namespace

int main(int argc, char** argv) {
  Shape s{argc > 1 ? std::atol(argv[1]) : 128, argc > 2 ? std::atol(argv[2]) : 256, argc > 3 ? std::atol(argv[3]) : 256};
  const long repeats = argc > 4 ? std::atol(argv[4]) : 2000;
  if (s.m % MR != 0) std::fprintf(stderr, "note: the last %ld rows are left out but in the tail lines\n", s.m % MR);
  if (s.n % NR != 0 || s.k % 8 != 0 || s.m < MR) {
    std::fprintf(stderr, "usage: small_nn [m] [n, a multiple of 16] [k, a multiple of 8] [repeats]\n");
    return 2;
  }
  std::vector<float> a(std::size_t(s.m * s.k)), b(std::size_t(s.k * s.n)), c(std::size_t(s.m * s.n));
  for (std::size_t e = 0; e < a.size(); ++e) a[e] = float(e % 7) - 3.0f;
  for (std::size_t e = 0; e < b.size(); ++e) b[e] = float(e % 5) - 2.0f;
  auto* pa = static_cast<float*>(std::aligned_alloc(64, std::size_t(s.m * s.k + 64) * 4));
  auto* pb = static_cast<float*>(std::aligned_alloc(64, std::size_t(s.k * s.n + 64) * 4));
  const double flops = 2.0 * double(s.m / MR * MR) * double(s.n) * double(s.k);
  auto report = [&](const char* what, double us, bool product) {
    if (product) std::printf("%-18s %9.2f us  %6.1f GFLOP/s\n", what, us, flops / us * 1e-3);
    else std::printf("%-18s %9.2f us\n", what, us);
  };
  std::vector<float> scratch(std::size_t(MR * s.n));
  report("full, A packed", best_median_us(repeats, [&] {
           pack_b(b.data(), s, pb);
           pack_a(a.data(), s, pa);
           tiles<false>(s, pa, true, pb, c.data());
         }), true);
  report("full, A unpacked", best_median_us(repeats, [&] {
           pack_b(b.data(), s, pb);
           tiles<false>(s, a.data(), false, pb, c.data());
         }), true);
  pack_b(b.data(), s, pb);
  pack_a(a.data(), s, pa);
  report("tiles only", best_median_us(repeats, [&] { tiles<false>(s, pa, true, pb, c.data()); }), true);
  report("tiles, A unpacked", best_median_us(repeats, [&] { tiles<false>(s, a.data(), false, pb, c.data()); }), true);
  report("tiles, C fetched", best_median_us(repeats, [&] { tiles<true>(s, pa, true, pb, c.data()); }), true);
  report("tiles, fetch 8 ahead", best_median_us(repeats, [&] { tiles<false, false, 8>(s, pa, true, pb, c.data()); }), true);
  report("tiles, fetch 16 ahead", best_median_us(repeats, [&] { tiles<false, false, 16>(s, pa, true, pb, c.data()); }), true);
  report("tiles, k rolled", best_median_us(repeats, [&] { tiles<false, true>(s, pa, true, pb, c.data()); }), true);
  report("tiles, both", best_median_us(repeats, [&] { tiles<true, true>(s, pa, true, pb, c.data()); }), true);
  if (s.m % MR == 2) {
    report("tiles, tail whole", best_median_us(repeats, [&] {
             tiles<false>(s, pa, true, pb, c.data(), Tail::whole, scratch.data());
           }), true);
    report("tiles, tail 2 rows", best_median_us(repeats, [&] {
             tiles<false>(s, pa, true, pb, c.data(), Tail::own, scratch.data());
           }), true);
  }
  report("B pack", best_median_us(repeats, [&] { pack_b(b.data(), s, pb); }), false);
  report("A pack", best_median_us(repeats, [&] { pack_a(a.data(), s, pa); }), false);
  // Check one element of each scheme against the sum, so the compiler keeps the work.
  double ref = 0;
  for (long p = 0; p < s.k; ++p) ref += double(a[std::size_t(p)]) * double(b[std::size_t(p * s.n)]);
  tiles<false>(s, a.data(), false, pb, c.data());
  const float unpacked = c[0];
  tiles<true>(s, pa, true, pb, c.data());
  if (std::abs(c[0] - ref) > 1e-3 * (1 + std::abs(ref)) || std::abs(unpacked - ref) > 1e-3 * (1 + std::abs(ref))) {
    std::fprintf(stderr, "wrong: c[0] %g (unpacked %g), expected %g\n", double(c[0]), double(unpacked), ref);
    return 1;
  }
  std::free(pa);
  std::free(pb);
  return 0;
}
