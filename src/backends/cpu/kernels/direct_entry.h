// The entry every direct kernel shares: empty problems, k = 0, and the split of C between
// threads around the kernel's block function.
#pragma once

#include "../cpu_tile_io.h"
#include "../cpu_thread_pool.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

// The work one hand-off to a pool worker costs, in multiply-adds of one core: starting it and
// seeing it finish take a cache-line transfer each way between cores (~0.3 µs apiece on the
// development machines, about 65k multiply-adds of AVX-512).
constexpr double kHandoffMacs = double(1 << 16);

// Splits rows [0, m) and columns [0, n) between `threads`, in whole tiles, along whichever
// has more tiles: each thread gets one contiguous range. The calling thread (t = 0) starts at
// once and learns of no one, so it takes a larger share the smaller the problem, to finish
// when the workers' results arrive.
struct Range2 {
  std::int64_t i0, i1, j0, j1;
};
inline Range2 thread_range(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tile_m, std::int64_t tile_n,
                           int t, int threads) {
  const double macs = double(m) * double(n) * double(k);
  const double lead = std::min(1.0, kHandoffMacs / macs) * (threads - 1) / threads;
  const bool by_columns = ceil_div(n, tile_n) >= ceil_div(m, tile_m);
  const std::int64_t tiles = by_columns ? ceil_div(n, tile_n) : ceil_div(m, tile_m);
  // Thread t's range of tiles is [edge(t), edge(t + 1)).
  auto edge = [&](int u) -> std::int64_t {
    if (u == 0) return 0;
    if (u >= threads) return tiles;
    const double first = 1.0 / threads + lead;  // the caller's fraction
    const double share = first + (1.0 - first) * double(u - 1) / double(threads - 1);
    return std::min<std::int64_t>(tiles, std::int64_t(double(tiles) * share + 0.5));
  };
  const std::int64_t begin = edge(t), end = edge(t + 1);
  if (by_columns) return {0, m, min64(n, begin * tile_n), min64(n, end * tile_n)};
  return {min64(m, begin * tile_m), min64(m, end * tile_m), 0, n};
}

// The entry of a direct kernel: empty problems, k = 0, and the split between threads around
// range(P, a, b, c, i0, i1, j0, j1), which computes one block of C on the calling thread.
template <DType In, DType Out, class Range>
inline void run_direct(const CpuGemmParams& P, const void* a_ptr, const void* b_ptr, void* c_ptr, std::int64_t tile_m,
                       std::int64_t tile_n, Range range) {
  const auto* a = static_cast<const StorageT<In>*>(a_ptr);
  const auto* b = static_cast<const StorageT<In>*>(b_ptr);
  auto* c = static_cast<StorageT<Out>*>(c_ptr);
  if (P.m == 0 || P.n == 0) return;
  if (P.k == 0) return scale_c_only<Out, AccVec<In>>(P, c);
  if (P.threads <= 1) return range(P, a, b, c, 0, P.m, 0, P.n);
  auto body = [&](int t, int threads) {
    const Range2 r = thread_range(P.m, P.n, P.k, tile_m, tile_n, t, threads);
    if (r.i0 < r.i1 && r.j0 < r.j1) range(P, a, b, c, r.i0, r.i1, r.j0, r.j1);
  };
  parallel_for_threads(P.threads, body);
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
