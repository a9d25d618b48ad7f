#include "skinny_config_space.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "../../core/config_space.h"
#include "config_text.h"
#include "kernel_dtype_codes.h"
#include "skinny_gemv.h"

namespace gemmtune::cuda {
namespace {

// A's pass in shared memory: at most this many bytes (rows of m × k words), so that several
// CTAs share an SM, and at most this many words of k (more only adds barriers' worth of nothing).
constexpr std::int64_t kPassBytes = 40 * 1024;
constexpr int kMaxPassWords = 512;
constexpr int kMaxRegisters = 255;
// Registers a thread spends on addresses, indices and the loop beyond the named arrays
// (ptxas -v over the list: 40-60).
constexpr int kRegisterOverhead = 56;
constexpr int kSkinnyMaxSplitK = 64;
constexpr int kMaxCtasPerSm = 32;
constexpr int kMaxWarpsPerSm = 64;

int words_of_block_k(const KernelConfig& c, const Problem& p) { return c.block_k / (p.a_type() == DType::s8 ? 4 : 2); }

std::int64_t blocks_of(const SkinnyInstance& w, std::int64_t n) { return std::max<std::int64_t>(1, (n + w.block_n() - 1) / w.block_n()); }

std::int64_t batches_of(const Problem& p, const KernelConfig& c) {
  return c.block_k > 0 ? (p.k() + c.block_k - 1) / c.block_k : 0;
}

// CTAs of this instance one SM holds at once (registers, shared memory, warps).
int ctas_per_sm(const SkinnyInstance& w, const CudaInfo& device) {
  const int regs = (std::min(w.registers_estimate(), kMaxRegisters) + 7) / 8 * 8;
  int ctas = std::min(kMaxCtasPerSm, kMaxWarpsPerSm / w.warps);
  if (device.registers_per_sm > 0) ctas = std::min(ctas, device.registers_per_sm / (regs * w.threads()));
  if (device.shared_memory_per_sm > 0) {
    ctas = std::min<std::int64_t>(ctas, device.shared_memory_per_sm / (w.shared_bytes() + 1024));
  }
  return std::max(1, ctas);
}

}  // namespace

std::int64_t SkinnyInstance::shared_bytes() const {
  if (k_warps > 1) {
    const std::int64_t partials = std::int64_t(k_warps - 1) * n_warps() * tiles * mt * 4 * 32 * 4;
    if (!a_group) return partials;
    const int bkw = block_k / elements_per_word();
    const std::int64_t row_words = bkw % 32 == 0 ? bkw + 16 : bkw;  // the kernel's GT_LDW
    return std::max(partials, std::int64_t(k_warps) * 2 * 8 * mt * row_words * 4);
  }
  return std::int64_t(8 * mt) * (pass / elements_per_word() + 16) * 4;
}

std::int64_t SkinnyInstance::counters_offset(std::int64_t n) const {
  return split_k > 1 ? std::int64_t(split_k) * blocks_of(*this, n) * block_n() * 8 * mt * 4 : 0;
}

std::int64_t SkinnyInstance::workspace_bytes(std::int64_t n) const {
  return split_k > 1 ? counters_offset(n) + blocks_of(*this, n) * std::int64_t(sizeof(int)) : 0;
}

int SkinnyInstance::registers_estimate() const {
  const int chunks = block_k / elements_per_word() / 16;
  // nt: two 16-byte rows per tile and chunk; nn: 4·EPW k rows of 8 n per chunk (32 words), and
  // the 32 words permuted from them.
  int batch = b_kcontig ? tiles * chunks * 8 : chunks * 32;
  if (k_warps > 1 && !a_group) batch += chunks * mt * 4;  // A's fragments travel with the batch
  return stages * batch + tiles * mt * 4 + mt * 4 + (b_kcontig ? 0 : 32) + kRegisterOverhead;
}

std::vector<std::string> SkinnyInstance::options(const std::string& arch) const {
  auto define = [](const char* name, std::int64_t value) { return std::string("-D") + name + "=" + std::to_string(value); };
  return {"--gpu-architecture=" + arch,
          "-std=c++17",
          "-default-device",
          define("GT_IN", in_code),
          define("GT_OUT", out_code),
          define("GT_A_KCONTIG", a_kcontig),
          define("GT_B_KCONTIG", b_kcontig),
          define("GT_MT", mt),
          define("GT_WARPS", warps),
          define("GT_KWARPS", k_warps),
          define("GT_A_GROUP", a_group),
          define("GT_TILES", tiles),
          define("GT_BK", block_k),
          define("GT_STAGES", stages),
          define("GT_PASS", pass),
          define("GT_SPLIT_K", split_k),
          define("GT_VEC", vec),
          define("GT_PDL", skinny_uses_pdl(arch))};
}

bool skinny_uses_pdl(const std::string& arch) {
  // "sm_XY" or "sm_XYa": compute capability X.Y.
  const int cc = std::atoi(arch.c_str() + (arch.rfind("sm_", 0) == 0 ? 3 : 0));
  return cc >= 90;
}

SkinnyInstance skinny_instance(const Problem& p, const KernelConfig& c) {
  SkinnyInstance w;
  w.in_code = input_code(p.a_type());
  w.out_code = output_code(p.c_type());
  w.a_kcontig = p.a_layout() == Layout::row_major;
  w.b_kcontig = p.b_layout() == Layout::col_major;
  w.mt = std::max(1, c.block_m / 8);
  w.warps = std::max(1, c.warps);
  w.k_warps = std::clamp(c.k_warps, 1, w.warps);
  w.a_group = c.a_source == kASourceGroup && w.k_warps > 1;
  w.tiles = std::max(1, c.block_n / (16 * w.n_warps()));
  w.block_k = c.block_k;
  w.stages = c.stages;
  w.split_k = std::max(1, c.split_k);
  const int epw = w.elements_per_word();
  // The pass: whole batches and whole 32-word groups, within the byte and word bounds.
  const int bkw = std::max(16, c.block_k / epw);
  const int unit = std::lcm(32, bkw);
  const std::int64_t fit = kPassBytes / (4 * 8 * w.mt) - 16;
  const std::int64_t words = std::max<std::int64_t>(unit, std::min<std::int64_t>(kMaxPassWords, fit) / unit * unit);
  w.pass = int(words) * epw;
  const int esize = dtype_size(p.a_type());
  w.vec = (p.ldb() * esize) % 16 == 0 && (!w.a_kcontig || (p.lda() * esize) % 16 == 0);
  return w;
}

const std::vector<SkinnyListEntry>& skinny_default_list() {
  // {warps, tiles per warp, block_k in words, stages, k_warps}. Rows the register bound rules
  // out for a problem (large m, the nn layout) drop out in check_skinny_config_shape.
  //
  // The warps that split k come first: on the H100 they won every decode shape up to m = 32
  // that the family won (bench/results/2026-11-26-h100-decode-kwarps.md; exhaustive space at
  // m 8 and 16: the 8-warp, 16-row, 64-word row best at 4096×4096, the 4-warp one at 14336×4096;
  // one stage, and 16 warps of 32 words, best at m = 16).
  // The rows after them are the one-group kernel's, for m = 64 and nn, where the groups' A
  // fragments and partial sums cost more registers than the rows allow. Last, warps that split
  // k with A staged per group in shared memory (a=group), for m = 16 and 32.
  static const std::vector<SkinnyListEntry> list = {
      {8, 1, 64, 2, 8},   {8, 1, 32, 2, 8}, {8, 1, 64, 1, 8}, {16, 1, 32, 1, 16}, {4, 1, 64, 2, 4},
      {4, 1, 64, 1, 4},   {8, 2, 64, 2, 4}, {4, 2, 32, 2, 4}, {8, 4, 16, 2, 4},   {4, 1, 64, 2},
      {4, 2, 32, 2},      {8, 1, 32, 2},    {4, 4, 16, 2},    {4, 4, 32, 1},
      {16, 1, 64, 2, 8, true}, {16, 1, 32, 2, 8, true},
  };
  return list;
}

std::vector<SkinnyListEntry> skinny_exhaustive_entries() {
  std::vector<SkinnyListEntry> entries;
  for (int warps : {2, 4, 8})
    for (int tiles : {1, 2, 4})
      for (int words : {16, 32, 64, 128})
        for (int stages : {1, 2}) entries.push_back({warps, tiles, words, stages});
  // Warps that split k: all of a CTA's warps on the same rows, or two groups of them.
  for (int warps : {4, 8, 16})
    for (int k_warps : {warps / 2, warps})
      for (int tiles : {1, 2, 4})
        for (int words : {16, 32, 64})
          for (int stages : {1, 2}) entries.push_back({warps, tiles, words, stages, k_warps});
  // The same with A staged per group in shared memory, which frees the registers for deeper
  // batches of B (64 words of k at m = 32 and 64), groups of one to four warps along n.
  for (int warps : {4, 8, 16})
    for (int k_warps : {warps / 4, warps / 2, warps})
      for (int tiles : {1, 2})
        for (int words : {32, 64})
          for (int stages : {1, 2}) {
            if (k_warps > 1) entries.push_back({warps, tiles, words, stages, k_warps, true});
          }
  return entries;
}

Status check_skinny_problem(const Problem& p) {
  if (p.m() > kSkinnyMaxRows) return unsupported("m " + text(p.m()) + " is above the skinny family's " + text(kSkinnyMaxRows));
  switch (p.a_type()) {
    case DType::f16:
    case DType::bf16:
    case DType::s8:
      break;
    default:
      return unsupported("the skinny family takes f16, bf16 and s8 inputs, not " + std::string(dtype_name(p.a_type())));
  }
  if (std::max({p.m(), p.n(), p.k()}) >= (std::int64_t(1) << 31)) return unsupported("a dim is 2^31 or more");
  return Status::ok();
}

Status check_skinny_config_shape(const KernelConfig& c, const Problem& p) {
  if (c.rank != 0 || c.micro_m != 0 || c.micro_n != 0 || c.threads != 0 || c.isa != 0 || c.group_m != 0 ||
      c.cluster_m != 0 || c.cluster_n != 0 || c.swap_ab != 0 || c.pingpong != 0 || c.kernel != kKernelMma ||
      (c.a_source != kASourceSmem && c.a_source != kASourceGroup) || c.grid != 0 || c.split_reduce != 0) {
    return invalid_argument("the skinny family's tensor-core kernel's fields are block_m, block_n, block_k, stages, "
                            "warps, k_warps, a_source (smem or group) and split_k");
  }
  if (c.a_source == kASourceGroup && c.k_warps <= 1) {
    return unsupported("a_source group stages A for warps that split k: k_warps must be 2 or more");
  }
  if (c.block_m % 8 != 0 || c.block_m < 8 || c.block_m > kSkinnyMaxRows || c.block_m < p.m()) {
    return unsupported("block_m " + text(c.block_m) + " must be a multiple of 8 from m (" + text(p.m()) + ") to " +
                       text(kSkinnyMaxRows));
  }
  if (c.warps != 2 && c.warps != 4 && c.warps != 8 && c.warps != 16) return unsupported("warps must be 2, 4, 8 or 16");
  const int k_warps = std::max(1, c.k_warps);
  if (c.k_warps < 0 || c.warps % k_warps != 0) {
    return unsupported("k_warps " + text(c.k_warps) + " must divide warps (" + text(c.warps) + ")");
  }
  const int n_warps = c.warps / k_warps;
  const int tiles = c.block_n / (16 * n_warps);
  if (c.block_n != tiles * 16 * n_warps || (tiles != 1 && tiles != 2 && tiles != 4)) {
    return unsupported("block_n " + text(c.block_n) + " must be warps / k_warps × 16 × 1, 2 or 4");
  }
  if (p.b_layout() == Layout::row_major && tiles != 4) {
    return unsupported("with B row-major (nn) a warp streams 64 rows of n: block_n must be warps / k_warps × 64");
  }
  const int words = words_of_block_k(c, p);
  if (c.block_k <= 0 || c.block_k % (p.a_type() == DType::s8 ? 4 : 2) != 0 || words % 16 != 0 || words > 128) {
    return unsupported("block_k " + text(c.block_k) + " must be 16, 32, 64 or 128 words of k");
  }
  GEMMTUNE_RETURN_IF_ERROR(check_skinny_stages(c.stages));
  GEMMTUNE_RETURN_IF_ERROR(check_skinny_split_k(c.split_k, batches_of(p, c), "batches"));
  return check_skinny_registers(skinny_instance(p, c).registers_estimate());
}

Status check_skinny_stages(int stages) {
  return stages == 1 || stages == 2 ? Status::ok() : unsupported("stages must be 1 or 2");
}

Status check_skinny_split_k(int split_k, std::int64_t units, const char* unit_name) {
  if (split_k < 0 || split_k > kSkinnyMaxSplitK || split_k > std::max<std::int64_t>(1, units)) {
    return unsupported("split_k " + text(split_k) + " must be in [1, " + text(kSkinnyMaxSplitK) + "] and at most the " +
                       text(units) + " " + unit_name + " of k");
  }
  return Status::ok();
}

Status check_skinny_registers(int estimate) {
  if (estimate > kMaxRegisters) {
    return unsupported("about " + text(estimate) + " registers a thread would spill (bound " + text(kMaxRegisters) + ")");
  }
  return Status::ok();
}

Status check_skinny_device(const CudaInfo& device) {
  // mma.sync with bf16 and the m16n8k32 s8 shape arrived with Ampere, and gemv's bf16
  // conversions and cp.async with a source size with it.
  if (device.cc_major < 8) {
    return unsupported("the skinny family needs compute capability 8.0 or later; the device has " +
                       text(device.cc_major) + "." + text(device.cc_minor));
  }
  return Status::ok();
}

Status check_skinny_limits(const KernelConfig& c, const Problem& p, const CudaInfo& device) {
  GEMMTUNE_RETURN_IF_ERROR(check_skinny_device(device));
  const SkinnyInstance w = skinny_instance(p, c);
  if (w.shared_bytes() > device.shared_memory_per_block_optin) {
    return unsupported("needs " + text(w.shared_bytes()) + " bytes of shared memory, the device allows " +
                       text(device.shared_memory_per_block_optin) + " per block");
  }
  return Status::ok();
}

std::vector<KernelConfig> skinny_mma_configs(const Problem& p, SearchSpace space, const CudaInfo& device) {
  if (!check_skinny_problem(p).is_ok()) return {};
  const std::vector<SkinnyListEntry> entries =
      space == SearchSpace::exhaustive ? skinny_exhaustive_entries() : skinny_default_list();
  const int epw = p.a_type() == DType::s8 ? 4 : 2;
  // Slices of k per row of the list: enough CTAs for half a wave (the default space), or
  // half, one, two and four waves (exhaustive). On the H100, over 64 decode tunings (bf16 and
  // s8; m 1-128; the (n, k) of the LLM sweep), 135 of the 137 configs within 2 % of the family's
  // best were half-wave splits, and no tuning picked a one- or two-wave split (1126 of the 2054
  // configs offered), while each cost a compile in a cold tuning
  // (bench/results/2026-11-27-h100-cold-tuning.md).
  std::vector<double> waves = {0.5};
  if (space == SearchSpace::exhaustive) waves = {0.5, 1.0, 2.0, 4.0};
  std::vector<KernelConfig> configs;
  for (const SkinnyListEntry& e : entries) {
    KernelConfig c;
    c.block_m = int(std::max<std::int64_t>(8, (p.m() + 7) / 8 * 8));
    c.warps = e.warps;
    c.k_warps = e.k_warps > 1 ? e.k_warps : 0;
    c.block_n = e.warps / std::max(1, e.k_warps) * 16 * e.tiles;
    c.block_k = e.block_k_words * epw;
    c.stages = e.stages;
    c.a_source = e.a_group ? kASourceGroup : kASourceSmem;
    c.split_k = 1;
    if (!check_skinny_config_shape(c, p).is_ok()) continue;
    const SkinnyInstance w = skinny_instance(p, c);
    const double wave = double(ctas_per_sm(w, device)) * std::max(1, device.sm_count);
    const std::int64_t blocks = blocks_of(w, p.n());
    const std::int64_t batches = std::max<std::int64_t>(1, batches_of(p, c));
    for (double f : waves) {
      const auto split = std::int64_t(std::ceil(f * wave / double(blocks)));
      c.split_k = int(std::clamp<std::int64_t>(split, 1, std::min<std::int64_t>(batches, kSkinnyMaxSplitK)));
      if (check_skinny_config_shape(c, p).is_ok() && check_skinny_limits(c, p, device).is_ok()) configs.push_back(c);
    }
  }
  // The one-group rows serve where warps that split k cannot: the nn layout, and m whose
  // groups' registers do not fit. With B k-contiguous (nt), over the same 64 tunings, no
  // one-group config came within 3 % of the tuning's best wherever a k-warp row was offered,
  // and theirs were the slowest compiles (bn = 256: 2.8-4.2 s in a cold tuning).
  const bool k_warp_rows = std::any_of(configs.begin(), configs.end(), [](const KernelConfig& c) { return c.k_warps > 1; });
  if (space == SearchSpace::default_space && p.b_layout() == Layout::col_major && k_warp_rows) {
    std::erase_if(configs, [](const KernelConfig& c) { return c.k_warps <= 1; });
  }
  return dedup_and_cap(configs, space == SearchSpace::exhaustive ? kSkinnyExhaustiveCap : kSkinnyDefaultCap);
}

std::vector<KernelConfig> skinny_configs(const Problem& p, SearchSpace space, const CudaInfo& device) {
  std::vector<KernelConfig> configs = skinny_mma_configs(p, space, device);
  const std::vector<KernelConfig> gemv = gemv_configs(p, space, device);
  configs.insert(configs.end(), gemv.begin(), gemv.end());
  return configs;
}

}  // namespace gemmtune::cuda
