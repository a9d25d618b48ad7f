#include "mma_config_space.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "../../core/config_space.h"
#include "config_text.h"

namespace gemmtune::cuda {
namespace {

// Blocks below 16 rows or columns leave most of an mma tile idle (Inductor's minimum too).
constexpr int kMinBlock = 16;
// Accumulators per thread above which ptxas spills: a thread has at most 255 registers, and
// besides the accumulators it holds the A and B fragments of one k step, the words of the next
// k-tile in flight and the addresses. Inductor prunes at 255 for Triton; this template holds
// more per accumulator, so the bound is 128 (and register_estimate below must fit too).
constexpr std::int64_t kMmaMaxAccumulatorsPerThread = 128;
// Addresses, bounds and loop state: measured with ptxas -v on sm_90a as roughly 40-50.
constexpr std::int64_t kRegistersForAddressing = 48;
constexpr std::int64_t kMaxRegistersPerThread = 255;
// Skinny shapes (few rows of output, long k) get split-k variants: with m ≤ 64 a grid has too
// few blocks to fill 100+ SMs unless k is sliced.
constexpr std::int64_t kSkinnyMaxM = 64;
constexpr std::int64_t kSkinnyMinK = 2048;

int buffers(const KernelConfig& c) { return c.stages >= 2 ? 2 : 1; }

// Registers a thread of this config needs: accumulators, the fragments of one k step
// (4 words per 16-row A tile, 2 per 8-column B tile), the next k-tile's words held in
// registers between the global load and the shared store, and the addressing.
std::int64_t register_estimate(const KernelConfig& c, const Problem& p) {
  const std::int64_t threads = std::int64_t(c.warps) * 32;
  const std::int64_t accumulators = (std::int64_t(c.block_m) * c.block_n + threads - 1) / threads;
  std::int64_t fragments = 0;
  if (auto layout = warp_layout(c.block_m, c.block_n, c.warps)) {
    fragments = 4 * (c.block_m / layout->warps_m / 16) + 2 * (c.block_n / layout->warps_n / 8);
  }
  const std::int64_t tile_words = std::int64_t(c.block_m + c.block_n) * (c.block_k / elements_per_word(p.a_type()));
  return accumulators + fragments + (tile_words + threads - 1) / threads + kRegistersForAddressing;
}

// The list entry scaled to the problem: blocks clamped to the next power of two of their dim
// (at least 16), then grown to the smallest block the warps can tile with whole 16×8 mma tiles.
std::optional<KernelConfig> scaled(const KernelConfig& entry, const Problem& p) {
  const int block_k_min = std::max(kMinBlock, mma_k(p.a_type()));
  const int bm = scale_block_to_dim(entry.block_m, p.m(), kMinBlock);
  const int bn = scale_block_to_dim(entry.block_n, p.n(), kMinBlock);
  KernelConfig c = entry;
  c.block_k = scale_block_to_dim(entry.block_k, p.k(), block_k_min);
  std::int64_t best_area = 0;
  for (int warps_m = 1; warps_m <= entry.warps; warps_m *= 2) {
    if (entry.warps % warps_m != 0) continue;
    const int grown_m = std::max(bm, 16 * warps_m);
    const int grown_n = std::max(bn, 8 * (entry.warps / warps_m));
    const std::int64_t area = std::int64_t(grown_m) * grown_n;
    if (best_area == 0 || area < best_area) {
      best_area = area;
      c.block_m = grown_m;
      c.block_n = grown_n;
    }
  }
  if (!warp_layout(c.block_m, c.block_n, c.warps)) return std::nullopt;
  // A slice needs at least one k-tile of its own.
  const std::int64_t k_tiles = (p.k() + c.block_k - 1) / c.block_k;
  c.split_k = int(std::clamp<std::int64_t>(std::min<std::int64_t>(entry.split_k, k_tiles), 1, 1 << 16));
  c.group_m = kMmaGroupM;
  return c;
}

const std::vector<MmaListEntry>& list_for(const Problem& p) {
  if (p.a_type() == DType::s8) return mma_int8_list();
  if (p.a_type() == DType::f32) return mma_tf32_list();
  return mma_default_list();
}

}  // namespace

const std::vector<MmaListEntry>& mma_default_list() {
  // Inductor's mm_configs adapted to this template: square tiles for large shapes, wide and
  // short tiles with deep k for skinny m. {block_m, block_n, block_k, stages, warps}
  static const std::vector<MmaListEntry> list = {
      {64, 64, 32, 2, 4},   {128, 128, 32, 2, 8}, {128, 64, 32, 2, 4}, {64, 128, 32, 2, 4},
      {128, 256, 32, 2, 8}, {256, 128, 32, 2, 8}, {128, 128, 64, 2, 8}, {64, 64, 64, 2, 4},
      {32, 64, 64, 2, 4},   {16, 64, 64, 2, 4},   {32, 32, 128, 2, 2}, {64, 32, 32, 1, 2},
  };
  return list;
}

const std::vector<MmaListEntry>& mma_int8_list() {
  // One mma.sync consumes 32 k of s8, so k tiles are deeper than for f16 (Inductor's
  // int8_mm_configs use block_k 64 and 128 likewise).
  static const std::vector<MmaListEntry> list = {
      {64, 64, 64, 2, 4},   {128, 128, 64, 2, 8}, {128, 64, 64, 2, 4},  {64, 128, 64, 2, 4},
      {128, 128, 128, 2, 8}, {64, 64, 128, 2, 4}, {32, 64, 128, 2, 4}, {16, 64, 128, 2, 4},
  };
  return list;
}

const std::vector<MmaListEntry>& mma_tf32_list() {
  // f32 tiles take twice the shared memory of f16 ones for the same k, so k stays at 16-32.
  static const std::vector<MmaListEntry> list = {
      {64, 64, 32, 2, 4},  {128, 128, 32, 2, 8}, {128, 64, 32, 2, 4}, {64, 128, 32, 2, 4},
      {128, 128, 16, 2, 8}, {64, 64, 16, 2, 4},  {32, 64, 32, 2, 4},  {16, 64, 32, 2, 4},
  };
  return list;
}

KernelConfig mma_list_config(const MmaListEntry& e, int split_k) {
  KernelConfig c;
  c.block_m = e.block_m;
  c.block_n = e.block_n;
  c.block_k = e.block_k;
  c.stages = e.stages;
  c.warps = e.warps;
  c.split_k = split_k;
  return c;
}

std::vector<KernelConfig> mma_exhaustive_entries() {
  std::vector<KernelConfig> entries;
  for (int bm : {16, 32, 64, 128, 256})
    for (int bn : {32, 64, 128, 256})
      for (int bk : {32, 64, 128})
        for (int stages : {1, 2})
          for (int warps : {2, 4, 8})
            for (int split_k : {1, 2, 4, 8}) entries.push_back(mma_list_config({bm, bn, bk, stages, warps}, split_k));
  return entries;
}

bool is_fault_kernel(std::int32_t kernel) { return kernel == kFaultIllegalAddress || kernel == kFaultSpin; }

bool fault_configs_allowed() {
  const char* flag = std::getenv("GEMMTUNE_ALLOW_FAULT_CONFIGS");
  return flag != nullptr && std::string(flag) == "1";
}

KernelConfig with_fault_defaults(const KernelConfig& config) {
  if (!is_fault_kernel(config.kernel) || config.block_m != 0) return config;
  KernelConfig c = mma_list_config({64, 64, 32, 1, 4}, 1);
  c.group_m = kMmaGroupM;
  c.kernel = config.kernel;
  return c;
}

int elements_per_word(DType input) {
  switch (input) {
    case DType::s8: return 4;
    case DType::f32: return 1;
    default: return 2;
  }
}

int mma_k(DType input) { return 8 * elements_per_word(input); }

std::optional<WarpLayout> warp_layout(int block_m, int block_n, int warps) {
  std::optional<WarpLayout> best;
  double best_skew = 0;
  for (int warps_m = 1; warps_m <= warps; warps_m *= 2) {
    if (warps % warps_m != 0) continue;
    const int warps_n = warps / warps_m;
    if (block_m % (16 * warps_m) != 0 || block_n % (8 * warps_n) != 0) continue;
    const double ratio = double(block_m / warps_m) / double(block_n / warps_n);
    const double skew = ratio >= 1 ? ratio : 1 / ratio;
    if (!best || skew < best_skew) {
      best = WarpLayout{warps_m, warps_n};
      best_skew = skew;
    }
  }
  return best;
}

std::int64_t mma_shared_memory_bytes(const KernelConfig& c, const Problem& p) {
  // Tiles are stored as 32-bit words with 4 words of padding per row (see gemm_mma.cuh).
  const std::int64_t row_words = c.block_k / elements_per_word(p.a_type()) + 4;
  return std::int64_t(buffers(c)) * (c.block_m + c.block_n) * row_words * 4;
}

std::int64_t mma_workspace_bytes(const KernelConfig& c, const Problem& p) {
  if (c.split_k <= 1) return 0;
  return std::int64_t(c.split_k) * p.m() * p.n() * 4;  // f32 or s32 partial sums
}

Status check_mma_problem(const Problem& p) {
  switch (p.a_type()) {
    case DType::f16:
    case DType::bf16:
    case DType::s8:
      return Status::ok();
    case DType::f32:
      if (p.allow_tf32()) return Status::ok();
      return unsupported("f32 without TF32 has no tensor-core path; cublaslt covers it");
    default:
      return unsupported("no tensor-core template for " + std::string(dtype_name(p.a_type())) + " inputs");
  }
}

Status check_mma_config_shape(const KernelConfig& c, const Problem& p) {
  if (c.rank != 0) return invalid_argument("rank is cuBLASLt's field; the mma backend has none");
  if (c.kernel != 0 && !is_fault_kernel(c.kernel)) {
    return unsupported("kernel " + std::string(kernel_name(c.kernel)) + " is not an mma template kernel");
  }
  if (c.micro_m != 0 || c.micro_n != 0 || c.threads != 0 || c.isa != 0) {
    return invalid_argument("micro_m, micro_n, threads and isa are CPU fields; the cuda backend takes none");
  }
  if (c.split_reduce != 0) return invalid_argument("reduce is the Hopper template's (wgmma); mma sums its slices in L2");
  if (c.block_m <= 0 || c.block_n <= 0 || c.block_k <= 0 || c.warps <= 0) {
    return invalid_argument("block_m, block_n, block_k and warps must be set");
  }
  if (c.stages < 1 || c.stages > 2) return unsupported("stages must be 1 or 2 (got " + text(c.stages) + ")");
  if (c.group_m < 1) return invalid_argument("group_m must be >= 1");
  if (c.split_k < 0 || c.split_k > 64) return unsupported("split_k must be in [0, 64] (got " + text(c.split_k) + ")");
  if ((c.warps & (c.warps - 1)) != 0 || c.warps > 32) return unsupported("warps must be a power of two up to 32");
  if (c.block_k % mma_k(p.a_type()) != 0) {
    return unsupported("block_k " + text(c.block_k) + " is not a multiple of the mma k extent " + text(mma_k(p.a_type())));
  }
  if (!warp_layout(c.block_m, c.block_n, c.warps)) {
    return unsupported(text(c.warps) + " warps cannot tile a " + text(c.block_m) + "x" + text(c.block_n) +
                       " block with whole 16x8 mma tiles");
  }
  const std::int64_t grid = ((p.m() + c.block_m - 1) / c.block_m) * ((p.n() + c.block_n - 1) / c.block_n);
  if (grid > 0x7fffffff) return unsupported("grid of " + text(grid) + " blocks exceeds gridDim.x");
  return Status::ok();
}

Status check_mma_limits(const KernelConfig& c, const Problem& p, const CudaInfo& device) {
  // mma.sync with bf16, tf32 and the m16n8k32 s8 shape arrived with Ampere.
  if (device.cc_major < 8) {
    return unsupported("the mma.sync shapes of this template need compute capability 8.0+ (device has " +
                       text(device.cc_major) + "." + text(device.cc_minor) + ")");
  }
  const std::int64_t threads = std::int64_t(c.warps) * 32;
  if (threads > device.max_threads_per_block) {
    return unsupported(text(threads) + " threads exceed the device's " + text(device.max_threads_per_block) +
                       " per block");
  }
  // A block asks for all its shared memory at launch; past the opt-in limit it cannot start.
  const std::int64_t smem = mma_shared_memory_bytes(c, p);
  if (smem > device.shared_memory_per_block_optin) {
    return unsupported("needs " + text(smem) + " bytes of shared memory, the device allows " +
                       text(device.shared_memory_per_block_optin) + " per block");
  }
  const std::int64_t accumulators = (std::int64_t(c.block_m) * c.block_n + threads - 1) / threads;
  if (accumulators > kMmaMaxAccumulatorsPerThread) {
    return unsupported(text(accumulators) + " accumulators per thread would spill (bound " +
                       text(kMmaMaxAccumulatorsPerThread) + ")");
  }
  // __launch_bounds__(threads) caps ptxas at registers_per_block / threads per thread; past the
  // cap it spills to local memory (s8 and tf32 128x256 tiles spilled kilobytes per thread).
  const std::int64_t registers = register_estimate(c, p);
  const std::int64_t register_cap =
      device.registers_per_block > 0 ? std::min(kMaxRegistersPerThread, device.registers_per_block / threads)
                                     : kMaxRegistersPerThread;
  if (registers > register_cap) {
    return unsupported("about " + text(registers) + " registers per thread needed, " + text(register_cap) +
                       " available at " + text(threads) + " threads");
  }
  return Status::ok();
}

std::vector<KernelConfig> mma_configs(const Problem& p, SearchSpace space, const CudaInfo& device) {
  if (!check_mma_problem(p).is_ok()) return {};
  std::vector<KernelConfig> entries;
  if (space == SearchSpace::exhaustive) {
    entries = mma_exhaustive_entries();
  } else {
    const auto& list = list_for(p);
    for (const MmaListEntry& e : list) entries.push_back(mma_list_config(e, 1));
    if (p.m() <= kSkinnyMaxM && p.k() >= kSkinnyMinK) {
      for (const MmaListEntry& e : list) {
        if (e.block_m <= kSkinnyMaxM) entries.push_back(mma_list_config(e, 4));
      }
      // The narrowest tile gets the other split factors: it makes the most blocks per slice.
      auto narrowest = std::min_element(list.begin(), list.end(), [](const MmaListEntry& a, const MmaListEntry& b) {
        return a.block_m < b.block_m;
      });
      for (int split_k : {2, 8}) entries.push_back(mma_list_config(*narrowest, split_k));
    }
  }
  std::vector<KernelConfig> configs;
  for (const KernelConfig& entry : entries) {
    std::optional<KernelConfig> c = scaled(entry, p);
    if (!c || !check_mma_config_shape(*c, p).is_ok() || !check_mma_limits(*c, p, device).is_ok()) continue;
    configs.push_back(*c);
  }
  return dedup_and_cap(configs, space == SearchSpace::exhaustive ? kMmaExhaustiveCap : kMmaDefaultCap);
}

}  // namespace gemmtune::cuda
