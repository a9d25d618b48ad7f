// How fast B of an nn product (k × n, row-major, ldb = n) can be packed into the packed
// kernel's NR-wide micro-panels, in three orders and at any block shape. On Zen 3,
// 64 × 6144 × 4096 nn spent ~38 % of the kernel in B's pack. This probe found the order
// matters little and the block's shape a lot: whole rows into an L2-sized buffer pack at the
// read bandwidth, the kernel's 512 × 512 block at a third
// (bench/results/2026-11-27-cpu-amd-zen3.md).
//   panel:          each micro-panel in turn, row by row (the packed kernel's order);
//   panel+prefetch: the same, fetching the row `distance` rows ahead (DRAM's latency takes
//                   a few dozen lines in flight);
//   rows:           each row of the kc × nc block in turn, its nc floats read in order and
//                   scattered to the micro-panels.
// Each pass packs all of B, block by block (kc × nc), as one thread of the kernel does for its
// columns; `threads` threads each take their own n / threads columns (the kernel's n split).
//
//   pack_b_nn [n] [k] [kc] [nc] [nr] [threads] [repeats] [distance]
//                                    defaults 6144 4096 512 512 16 1 20 8
//
// Prints each order's best and median pass and the rate at which it reads B.
#include <immintrin.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "passes.h"

namespace {

struct Shape {
  long n, k, kc, nc, nr;
  long distance = 8;  // rows ahead that panel+prefetch fetches
};

enum class Order { panel, panel_prefetch, rows };

// Packs columns [j_begin, j_end) of B (all k rows) into `out`, block by block. NR is a
// constant, as in the kernel, so each micro-panel row is a few vector moves, not a call.
template <long NR>
__attribute__((target("avx2"))) void pack(const float* b, const Shape& s, long j_begin, long j_end, Order order,
                                           float* out) {
  for (long jc = j_begin; jc < j_end; jc += s.nc) {
    const long nb = std::min(s.nc, j_end - jc);
    for (long pc = 0; pc < s.k; pc += s.kc) {
      const long kb = std::min(s.kc, s.k - pc);
      const float* block = b + pc * s.n + jc;
      if (order == Order::rows) {
        for (long r = 0; r < kb; ++r) {
          const float* row = block + r * s.n;
          for (long j = 0; j < nb; j += NR) {
            std::memcpy(out + (j / NR) * kb * NR + r * NR, row + j, NR * sizeof(float));
          }
        }
      } else {
        for (long j = 0; j < nb; j += NR) {
          float* panel = out + (j / NR) * kb * NR;
          for (long r = 0; r < kb; ++r) {
            if (order == Order::panel_prefetch && r + s.distance < kb) {
              _mm_prefetch(reinterpret_cast<const char*>(block + (r + s.distance) * s.n + j), _MM_HINT_T0);
            }
            std::memcpy(panel + r * NR, block + r * s.n + j, NR * sizeof(float));
          }
        }
      }
    }
  }
}

void pack_any(const float* b, const Shape& s, long j_begin, long j_end, Order order, float* out) {
  switch (s.nr) {
    case 8: return pack<8>(b, s, j_begin, j_end, order, out);
    case 16: return pack<16>(b, s, j_begin, j_end, order, out);
    case 24: return pack<24>(b, s, j_begin, j_end, order, out);
    default: return pack<32>(b, s, j_begin, j_end, order, out);
  }
}

const char* name_of(Order order) {
  return order == Order::panel ? "panel" : order == Order::panel_prefetch ? "panel+prefetch" : "rows";
}

}  // namespace

int main(int argc, char** argv) {
  Shape s{argc > 1 ? std::atol(argv[1]) : 6144, argc > 2 ? std::atol(argv[2]) : 4096,
          argc > 3 ? std::atol(argv[3]) : 512,  argc > 4 ? std::atol(argv[4]) : 512,
          argc > 5 ? std::atol(argv[5]) : 16};
  const int threads = argc > 6 ? std::atoi(argv[6]) : 1;
  const int repeats = argc > 7 ? std::atoi(argv[7]) : 20;
  if (argc > 8) s.distance = std::atol(argv[8]);
  if (s.n <= 0 || s.k <= 0 || s.kc <= 0 || s.nc <= 0 || (s.nr != 8 && s.nr != 16 && s.nr != 24 && s.nr != 32) || s.nc % s.nr != 0 || threads <= 0 ||
      repeats <= 0 || s.n % (threads * s.nr) != 0 || s.distance <= 0) {
    std::fprintf(stderr,
                 "usage: pack_b_nn [n] [k] [kc] [nc] [nr] [threads] [repeats] [distance]: positive, nr 8, 16, 24 or 32, nc a multiple "
                 "of nr, "
                 "n a multiple of threads × nr\n");
    return 2;
  }
  std::vector<float> b(std::size_t(s.n * s.k));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(i & 255);
  // Each thread's pack buffer: one kc × nc block, as the kernel's (reused block after block).
  std::vector<std::vector<float>> out(threads, std::vector<float>(std::size_t(s.kc * s.nc)));
  const long share = s.n / threads;
  const double bytes = double(s.n) * double(s.k) * sizeof(float);
  std::printf("B %ld x %ld f32 nn (%.0f MiB), blocks %ld x %ld, micro-panels %ld wide, %d threads, %d passes\n",
              s.k, s.n, bytes / (1 << 20), s.kc, s.nc, s.nr, threads, repeats);
  for (Order order : {Order::panel, Order::panel_prefetch, Order::rows, Order::panel}) {
    const std::vector<double> seconds = timed_passes(threads, repeats, [&](int t) {
      pack_any(b.data(), s, t * share, (t + 1) * share, order, out[t].data());
    });
    const double best = seconds.front(), median = seconds[seconds.size() / 2];
    double check = 0;  // read the packed floats, so no compiler may drop the stores
    for (const auto& buffer : out) check += buffer[buffer.size() / 2];
    std::printf("%s", check < 0 ? " " : "");
    std::printf("  %-15s best %9.1f us (%5.1f GB/s)  median %9.1f us (%5.1f GB/s)\n", name_of(order), best * 1e6,
                bytes / best / 1e9, median * 1e6, bytes / median / 1e9);
  }
  return 0;
}
