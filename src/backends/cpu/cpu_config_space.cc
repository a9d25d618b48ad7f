#include "cpu_config_space.h"

#include <algorithm>

#include "../../core/config_space.h"
#include "cpu_offered_kernels.h"

namespace gemmtune::cpu {
namespace {

// k blocks below this are mostly loop overhead around the micro-kernel.
constexpr int kMinBlockK = 16;

// Direct kernels pay where packing would cost as much as the product: up to this many
// multiply-adds, or on skinny shapes (either of m and n at most kSkinny).
constexpr double kDirectMacs = double(1 << 18);
constexpr std::int64_t kSkinny = 16;
// The axpy kernel is offered up to this many rows of A: its tallest tile.
constexpr std::int64_t kAxpyRows =
    std::max_element(std::begin(kAxpyTiles), std::end(kAxpyTiles),
                     [](MicroTile a, MicroTile b) { return a.micro_m < b.micro_m; })
        ->micro_m;
// The columns kernel holds up to 4 vectors of rows of A (64 with AVX-512): it streams W
// unpacked, which beats packing W until the batch fills the packed kernel's tiles.
constexpr std::int64_t kColumnsVectors = 4;
// Below this many multiply-adds a product runs on one thread: halving it saves less than the
// pool's fork/join costs (~0.4 µs, some 40k multiply-adds of one AVX-512 core).
constexpr double kThreadedMacs = double(1 << 16);
// Above this, one thread is never the fastest choice and is not offered.
constexpr double kAlwaysThreadedMacs = double(1 << 22);

double macs(const Problem& p) { return double(p.m()) * double(p.n()) * double(p.k()); }

// Whether B fits this core's L2, where a direct kernel reads it at cache speed in any order.
bool b_in_l2(const Problem& p, const CpuInfo& cpu) {
  return double(p.k()) * double(p.n()) * double(dtype_size(p.a_type())) <= double(cpu.l2_bytes);
}

KernelConfig scaled(const CpuListEntry& e, int isa, int threads, const Problem& p) {
  KernelConfig c;
  c.micro_m = e.micro_m;
  c.micro_n = e.micro_nv * vector_lanes(isa);
  // Blocks shrink to the problem (Inductor's rule), then round up to whole register tiles.
  c.block_m = round_up_to_multiple(scale_block_to_dim(e.block_m, p.m(), e.micro_m), e.micro_m);
  c.block_n = round_up_to_multiple(scale_block_to_dim(e.block_n, p.n(), c.micro_n), c.micro_n);
  c.block_k = scale_block_to_dim(e.block_k, p.k(), kMinBlockK);
  c.threads = threads;
  c.isa = isa;
  return c;
}

std::vector<CpuListEntry> exhaustive_entries() {
  std::vector<CpuListEntry> entries;
  for (const MicroTile& tile : kMicroTiles) {
    for (int block_k : {64, 128, 256, 512}) {
      for (int rows_of_tiles : {4, 8, 16}) {
        for (int block_n : {256, 1024, 4096}) {
          entries.push_back({tile.micro_m, tile.micro_nv, tile.micro_m * rows_of_tiles, block_n, block_k});
        }
      }
    }
  }
  return entries;
}

// Bytes one (k, column) element takes in a packed panel: 4 for f32 words, 2 for bf16 and s16
// pairs, 1 for VNNI quads.
int packed_bytes(DType in, int isa) {
  if (in == DType::s8) return isa >= kIsaAvx512Vnni ? 1 : 2;
  if (in == DType::bf16 && isa >= kIsaAvx512Bf16) return 2;
  return 4;
}

// Every core; below kAlwaysThreadedMacs also a half and a quarter of them (where that is two
// or more) and one. On the 16-core Xeon host a 64³ product ran fastest on 8 of the 16 cores
// (medians 2.4-2.9 us against 3.0-4.3 on 16, in three processes of 20 routings), and 8
// threads held their time where 16 read up to 4x slower for seconds at a time after oneDNN's
// OpenMP threads had run (bench/results/2026-11-29g-cpu-routes.md). On two cores this is
// {2, 1} as before.
std::vector<int> thread_counts(const Problem& p, const CpuInfo& cpu) {
  if (cpu.logical_cores <= 1 || macs(p) < kThreadedMacs) return {1};
  if (macs(p) >= kAlwaysThreadedMacs) return {cpu.logical_cores};
  std::vector<int> counts = {cpu.logical_cores};
  for (int part : {cpu.logical_cores / 2, cpu.logical_cores / 4}) {
    if (part >= 2 && part != counts.back()) counts.push_back(part);
  }
  counts.push_back(1);
  return counts;
}

}  // namespace

const std::vector<CpuListEntry>& cpu_default_list(int isa) {
  // AVX-512: 6×4, 8×3 and 14×2 vectors hold 24 to 28 accumulators, enough independent FMAs
  // to cover their latency on two pipes with few loads per FMA; narrower tiles for small m.
  // Deep k blocks (512, 1024): every k block costs a pass over C, and on cores with a large,
  // fast L2 (Zen 4/5: 1 MiB) the micro-panels stream from there at full speed.
  static const std::vector<CpuListEntry> wide = {
      {6, 4, 96, 512, 1024},  {6, 4, 96, 1024, 512}, {14, 2, 112, 512, 512}, {8, 3, 96, 768, 512},
      {6, 4, 192, 1024, 256}, {4, 4, 64, 1024, 1024}, {2, 4, 32, 1024, 1024}, {1, 4, 16, 2048, 1024},
  };
  // AVX2 and generic have 16 registers: 6×2 and 4×3 vectors (12 accumulators) are the largest.
  static const std::vector<CpuListEntry> narrow = {
      {6, 2, 96, 512, 512}, {4, 3, 64, 768, 512}, {4, 2, 64, 512, 512},
      {8, 1, 64, 512, 512}, {2, 4, 32, 1024, 512}, {1, 4, 16, 1024, 1024},
  };
  return isa >= kIsaAvx512 ? wide : narrow;
}

const std::vector<CpuListEntry>& cpu_int8_list(int isa) {
  // s8 panels hold two (s16 pairs) or four (VNNI) k values per word: deeper k blocks for the
  // same bytes.
  static const std::vector<CpuListEntry> wide = {
      {6, 4, 96, 1024, 2048}, {6, 4, 96, 1024, 1024}, {8, 3, 96, 768, 2048},
      {14, 2, 112, 1024, 1024}, {4, 4, 64, 1024, 2048}, {1, 4, 16, 2048, 2048},
  };
  static const std::vector<CpuListEntry> narrow = {
      {6, 2, 96, 512, 1024}, {4, 3, 64, 768, 1024}, {4, 2, 64, 512, 1024}, {1, 4, 16, 1024, 2048},
  };
  return isa >= kIsaAvx512 ? wide : narrow;
}

int isa_for_dtype(DType in, const CpuInfo& cpu) {
  const int best = cpu.best_isa();
  if (in == DType::s8) return best < kIsaAvx512Vnni ? best : kIsaAvx512Vnni;
  if (in == DType::bf16 && best == kIsaAvx512Bf16) return best;
  return best < kIsaAvx512 ? best : kIsaAvx512;
}

Status check_cpu_limits(const KernelConfig& c, const Problem& p, const CpuInfo& cpu) {
  if (c.isa > cpu.best_isa()) {
    return unsupported(std::string("this CPU lacks ") + std::string(cpu_isa_name(c.isa)));
  }
  // Accumulators that do not fit the register file spill to the stack on every k step (the
  // rule that also decides which kernels are compiled: cpu_offered_kernels.h).
  const TileKey key = tile_key(c.kernel, c.micro_m, c.micro_n, vector_lanes(c.isa));
  if (!tile_fits_registers(c.isa, c.kernel, key)) {
    return unsupported("register tile " + std::to_string(c.micro_m) + "x" + std::to_string(c.micro_n) + " needs " +
                       std::to_string(registers_for_kernel(c.kernel, key)) + " vector registers, " +
                       std::string(cpu_isa_name(c.isa)) + " has " + std::to_string(vector_registers(c.isa)));
  }
  if (c.threads > cpu.logical_cores) {
    return unsupported("more threads than the " + std::to_string(cpu.logical_cores) + " cores");
  }
  if (c.kernel != kKernelPacked) return Status::ok();
  const std::int64_t bytes = packed_bytes(p.a_type(), c.isa);
  // The bm × bk block of A is reused across every B micro-panel, and each bk × mn B
  // micro-panel across the block's A micro-panels: the micro-kernel streams both from this
  // core's L2, so they must fit it together.
  if ((std::int64_t(c.block_m) + c.micro_n) * c.block_k * bytes > cpu.l2_bytes) {
    return unsupported("A block of bm x bk and a B micro-panel of bk x mn do not fit L2 (" +
                       std::to_string(cpu.l2_bytes >> 10) + " KiB)");
  }
  // Each thread packs its own bk × bn block of B, reused by every A block: they share L3.
  if (std::int64_t(c.block_k) * c.block_n * bytes * c.threads > cpu.l3_bytes) {
    return unsupported("B blocks of bk x bn per thread do not fit L3 (" + std::to_string(cpu.l3_bytes >> 20) + " MiB)");
  }
  return Status::ok();
}

void Offer::add(const CpuKernelFamily& family, int micro_m, int micro_n, int tile_isa, int block_k) const {
  KernelConfig c;
  c.kernel = family.kernel;
  c.micro_m = micro_m;
  c.micro_n = micro_n;
  c.block_k = block_k;
  c.threads = threads;
  c.isa = tile_isa < 0 ? isa : tile_isa;
  const bool fits = check_cpu_limits(c, p, cpu).is_ok();
  if (fits && family.cannot_run(p, strides, c, vector_lanes(c.isa)).empty()) out->push_back(c);
}

void Offer::add_rows_tiles(const CpuKernelFamily& family, std::int64_t nv) const {
  auto add_tile = [&](const MicroTile& t) {
    if (exhaustive || (t.micro_nv == nv && t.micro_m <= std::max<std::int64_t>(p.m(), 1))) {
      add(family, t.micro_m, t.micro_nv * lanes);
    }
  };
  for (const MicroTile& t : family.tiles) add_tile(t);
  if (takes_f32_tiles(p.a_type(), p.c_type())) {
    for (const MicroTile& t : family.f32_tiles) add_tile(t);
  }
}

// ---- the direct families' offers (the rows of cpu_kernel_families.h) ----
//
// An offer adds none of its family's configs where the family cannot read the problem's
// layouts or where another family does better, else the tiles no taller than the problem and
// no wider than it needs (every tile in the exhaustive space).

namespace {
// Columns a 256-bit vector holds: the AVX2 tile's width, half a 512-bit vector.
constexpr int kHalfLanes = vector_lanes(kIsaAvx2);
}  // namespace

// All of C as one tile, when it fits the register file and one thread. And C no wider than
// half a 512-bit vector as the AVX2 tile, whose 256-bit multiply-adds Zen 4 issues at twice the
// rate of 512-bit ones (which it splits in two) and no lane is padding.
void offer_tile(const Offer& o, const CpuKernelFamily& family) {
  if (o.strides.b_cs != 1 || o.threads != 1) return;
  if (o.p.n() <= o.vectors * o.lanes && o.p.m() <= kMaxTileRows[o.vectors]) {
    o.add(family, int(o.p.m()), int(o.vectors) * o.lanes);
  }
  if (o.isa >= kIsaAvx512 && o.p.n() <= kHalfLanes) o.add(family, int(o.p.m()), kHalfLanes, kIsaAvx2);
}

// The same C with two steps of k side by side in each 512-bit vector: no lane is padding
// and half the multiply-adds (A row-major: its pairs are adjacent).
void offer_pairs(const Offer& o, const CpuKernelFamily& family) {
  if (o.strides.b_cs == 1 && o.strides.a_ks == 1 && o.threads == 1 && o.isa >= kIsaAvx512 && o.p.n() <= kHalfLanes &&
      o.p.m() <= kMaxPairsRows) {
    o.add(family, int(o.p.m()), kHalfLanes, kIsaAvx512);
  }
}

// B row-major, read as vectors where it lies.
void offer_rows(const Offer& o, const CpuKernelFamily& family) {
  if (o.strides.b_cs == 1) o.add_rows_tiles(family, o.vectors);
}

// C a few columns past whole vectors (17 × 33), A row-major: the rows tiles of the whole
// vectors, with dots for the last columns instead of a last vector of padding.
void offer_rows_dots(const Offer& o, const CpuKernelFamily& family) {
  const std::int64_t tail = o.p.n() % o.lanes;
  if (o.strides.b_cs == 1 && o.strides.a_ks == 1 && o.p.n() >= o.lanes && tail > 0 && tail <= max_dots_tail(o.lanes)) {
    o.add_rows_tiles(family, std::min<std::int64_t>(4, o.p.n() / o.lanes));
  }
}

// B too large for L2, contiguous along n, against a few rows: streamed in its own order.
// Tiles up to the next power of two of m (rows past m are padding), each with shallow and
// deep blocks (no deeper than k): which one wins turns on m, not on the tile.
void offer_stream(const Offer& o, const CpuKernelFamily& family) {
  if (o.strides.b_cs != 1 || !(o.exhaustive || (o.p.m() <= kSkinny && !b_in_l2(o.p, o.cpu)))) return;
  for (const MicroTile& t : family.tiles) {
    if (!o.exhaustive && t.micro_m >= 2 * std::max<std::int64_t>(o.p.m(), 1)) continue;
    for (int depth : kStreamBlockDepths) {
      o.add(family, t.micro_m, t.micro_nv * o.lanes, -1,
            scale_block_to_dim(depth, o.p.k(), kStreamBlockDepths[0]));
    }
  }
}

// The same B against 1-4 rows: added into rows of C in L1, each group of rows of A reading
// B once (tiles up to the next power of two of m; micro_nv counts rows of B a pass).
void offer_axpy(const Offer& o, const CpuKernelFamily& family) {
  if (o.strides.b_cs != 1 || !(o.exhaustive || (o.p.m() <= kAxpyRows && !b_in_l2(o.p, o.cpu)))) return;
  for (const MicroTile& t : family.tiles) {
    if (o.exhaustive || t.micro_m < 2 * std::max<std::int64_t>(o.p.m(), 1)) o.add(family, t.micro_m, t.micro_nv);
  }
}

// A and B contiguous along k. Dots need (rows + columns) loads per tile step: past a few
// rows, columns does better.
void offer_dot(const Offer& o, const CpuKernelFamily& family) {
  const bool dots = o.exhaustive || o.p.m() <= kSkinny || o.p.n() <= kSkinny || macs(o.p) <= kDirectMacs;
  if (!dots || o.strides.a_ks != 1 || o.strides.b_ks != 1) return;
  for (const MicroTile& t : family.tiles) {
    if (o.exhaustive || (t.micro_m <= o.p.m() && t.micro_nv <= o.p.n())) o.add(family, t.micro_m, t.micro_nv);
  }
}

// B contiguous along k: columns tiles whose vectors of rows hold the batch with the least
// padding (batches of more rows run in panels of the widest tile).
void offer_columns(const Offer& o, const CpuKernelFamily& family) {
  if (o.strides.b_ks != 1) return;
  const std::int64_t row_vectors = std::min<std::int64_t>(kColumnsVectors, (o.p.m() + o.lanes - 1) / o.lanes);
  for (const MicroTile& t : family.tiles) {
    if (o.exhaustive || (t.micro_nv == row_vectors && t.micro_m <= o.p.n())) {
      o.add(family, t.micro_nv * o.lanes, t.micro_m);
    }
  }
}

namespace {

// The direct families' configs for a small or skinny problem, on each thread count: each
// row's offer, where the family has instances for the problem's dtypes (the rule the kernels
// are compiled by).
std::vector<KernelConfig> direct_configs(const Problem& p, SearchSpace space, const CpuInfo& cpu) {
  const int isa = isa_for_dtype(p.a_type(), cpu);
  const int lanes = vector_lanes(isa);
  std::vector<KernelConfig> configs;
  for (int threads : thread_counts(p, cpu)) {
    const Offer offer{p,
                      cpu_strides(p),
                      cpu,
                      isa,
                      lanes,
                      threads,
                      space == SearchSpace::exhaustive,
                      std::min<std::int64_t>(4, (p.n() + lanes - 1) / lanes),
                      &configs};
    for (const CpuKernelFamily& family : kCpuKernelFamilies) {
      if (family.offer != nullptr && family_takes_dtypes(family.kernel, p.a_type(), p.c_type())) {
        family.offer(offer, family);
      }
    }
  }
  return configs;
}

// A list entry's blocks halved until they fit this CPU's caches (a list is written for one
// cache size; the same tile with a shallower k block beats no config at all elsewhere).
KernelConfig fit_to_caches(KernelConfig c, const Problem& p, const CpuInfo& cpu) {
  const std::int64_t bytes = packed_bytes(p.a_type(), c.isa);
  auto l2_bytes = [&] { return (std::int64_t(c.block_m) + c.micro_n) * c.block_k * bytes; };
  // Shallower k blocks first: a k block larger than L2 allows is the list's guess for another
  // cache, while the row block is what the register tile is reused over.
  while (c.block_k > kMinBlockK && l2_bytes() > cpu.l2_bytes) c.block_k /= 2;
  while (c.block_m > c.micro_m && l2_bytes() > cpu.l2_bytes) {
    c.block_m = std::max(c.micro_m, (c.block_m / 2) / c.micro_m * c.micro_m);
  }
  while (c.block_n > c.micro_n && std::int64_t(c.block_k) * c.block_n * bytes * c.threads > cpu.l3_bytes) {
    c.block_n = std::max(c.micro_n, (c.block_n / 2) / c.micro_n * c.micro_n);
  }
  return c;
}

std::vector<KernelConfig> packed_configs(const Problem& p, SearchSpace space, const CpuInfo& cpu, int lowest_isa) {
  const int best = isa_for_dtype(p.a_type(), cpu);
  const CpuGemmParams strides = cpu_strides(p);
  std::vector<int> isas = {best};
  if (space == SearchSpace::exhaustive) {
    for (int isa = best - 1; isa >= lowest_isa; --isa) isas.push_back(isa);
  }
  std::vector<KernelConfig> configs;
  for (int isa : isas) {
    const std::vector<CpuListEntry> entries = space == SearchSpace::exhaustive ? exhaustive_entries()
                                              : p.a_type() == DType::s8       ? cpu_int8_list(isa)
                                                                              : cpu_default_list(isa);
    for (int threads : thread_counts(p, cpu)) {
      for (const CpuListEntry& entry : entries) {
        KernelConfig c = fit_to_caches(scaled(entry, isa, threads, p), p, cpu);
        if (check_cpu_limits(c, p, cpu).is_ok() && packed_cannot_run(p, strides, c, vector_lanes(isa)).empty()) {
          configs.push_back(c);
        }
      }
    }
  }
  return configs;
}

}  // namespace

std::vector<KernelConfig> cpu_configs(const Problem& p, SearchSpace space, const CpuInfo& cpu, int lowest_isa) {
  const std::int64_t columns_rows = kColumnsVectors * vector_lanes(isa_for_dtype(p.a_type(), cpu));
  // A B that fits L2 stays there across all row tiles of a direct kernel, which then reads it
  // at cache speed and saves the packing: f32 256³ (B 256 KiB of a 1 MiB L2) and 384³
  // (576 KiB), where the rows kernel beats the packed one by 4-15% and matches oneDNN.
  const bool direct = space == SearchSpace::exhaustive || macs(p) <= kDirectMacs || p.m() <= kSkinny ||
                      p.n() <= kSkinny || p.m() <= columns_rows || b_in_l2(p, cpu);
  std::vector<KernelConfig> configs;
  if (direct) configs = direct_configs(p, space, cpu);
  for (const KernelConfig& c : packed_configs(p, space, cpu, lowest_isa)) configs.push_back(c);
  // The default cap is for two thread counts (every core and one): where the product is also
  // offered a half and a quarter of the cores, the cap grows with them, or it would cut the
  // packed configs and the single thread (they come last) from the list.
  const std::size_t counts = std::max<std::size_t>(2, thread_counts(p, cpu).size());
  return dedup_and_cap(configs, space == SearchSpace::exhaustive ? kExhaustiveCap : kDefaultCap * counts / 2);
}

}  // namespace gemmtune::cpu
