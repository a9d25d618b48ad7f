#include "cutlass_config_space.h"

#include <algorithm>
#include <string>

#include "../../core/config_space.h"
#include "config_text.h"

namespace gemmtune::cuda {
namespace {

// A consumer thread's accumulators: a cooperative tile's rows are split between the two
// consumer warpgroups, a ping-pong tile is one warpgroup's. Past 128 the consumers spill.
constexpr int kCutlassMaxAccumulatorsPerThread = 128;
constexpr int kCutlassMaxBlock = 256;  // wgmma's largest n, TMA's largest box edge
// The default space drops a config whose tiles would keep fewer than 1/kCutlassMinFillShare of the SMs
// busy where another keeps them all busy (as the wgmma family does).
constexpr std::int64_t kCutlassMinFillShare = 4;

int input_bytes(DType type) { return int(dtype_size(type)); }

bool a_m_contiguous(const Problem& p) { return p.a_layout() == Layout::col_major; }
bool b_n_contiguous(const Problem& p) { return p.b_layout() == Layout::row_major; }

// Why an operand TMA reads or writes cannot be addressed: its leading dimension is not whole
// 16-byte units, or its contiguous extent is not whole 16-byte vectors (CUTLASS's alignment).
std::string alignment_problem(const char* name, std::int64_t ld, std::int64_t contiguous, int bytes) {
  if ((ld * bytes) % 16 != 0) return std::string(name) + "'s leading dimension " + text(ld) + " is not a multiple of 16 bytes";
  if ((contiguous * bytes) % 16 != 0) {
    return std::string(name) + "'s contiguous extent " + text(contiguous) + " is not a multiple of 16 bytes";
  }
  return "";
}

std::int64_t cutlass_tiles_of(const Problem& p, const KernelConfig& c) {
  return ((p.m() + c.block_m - 1) / c.block_m) * ((p.n() + c.block_n - 1) / c.block_n);
}

}  // namespace

int cutlass_block_k(DType input) { return 128 / input_bytes(input); }

const std::vector<CutlassListEntry>& cutlass_default_list() {
  // {block_m, block_n, pingpong, cluster_m, cluster_n, stream_k}. Cooperative 128×256 and
  // 256×128 tiles (with 2-CTA clusters) for large shapes, 128×128 in a cluster and with the
  // stream-K scheduler for mid ones, ping-pong 64- and 128-row tiles where tiles are few.
  // Each row also with a swizzle of 8, which costs no build: the same object runs it.
  static const std::vector<CutlassListEntry> list = [] {
    std::vector<CutlassListEntry> rows = {
        {128, 256, false, 1, 1, false}, {128, 256, false, 2, 1, false}, {256, 128, false, 1, 2, false},
        {128, 128, false, 2, 1, false}, {128, 128, false, 1, 1, true},  {128, 256, false, 1, 1, true},
        {128, 128, true, 1, 1, false},  {64, 256, true, 1, 1, false},   {64, 128, true, 1, 1, false},
    };
    const std::size_t base = rows.size();
    for (std::size_t i = 0; i < base; ++i) {
      CutlassListEntry swizzled = rows[i];
      swizzled.swizzle = 8;
      rows.push_back(swizzled);
    }
    return rows;
  }();
  return list;
}

std::vector<CutlassListEntry> cutlass_exhaustive_entries() {
  std::vector<CutlassListEntry> entries;
  for (bool pingpong : {false, true})
    for (int bm : {64, 128, 256})
      for (int bn : {64, 128, 192, 256})
        for (auto [cm, cn] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 2}})
          for (bool stream_k : {false, true})
            for (int swizzle : {1, 8}) entries.push_back({bm, bn, pingpong, cm, cn, stream_k, swizzle});
  return entries;
}

KernelConfig cutlass_list_config(const CutlassListEntry& e, DType input) {
  KernelConfig c;
  c.block_m = e.block_m;
  c.block_n = e.block_n;
  c.block_k = cutlass_block_k(input);
  c.pingpong = e.pingpong ? 1 : 0;
  c.cluster_m = e.cluster_m;
  c.cluster_n = e.cluster_n;
  c.stream_k = e.stream_k ? 1 : 0;
  c.group_m = e.swizzle > 1 ? e.swizzle : 0;
  return c;
}

int cutlass_swizzle(const KernelConfig& c) { return std::max(c.group_m, 1); }

Status check_cutlass_problem(const Problem& p) {
  const DType in = p.a_type(), out = p.c_type();
  switch (in) {
    case DType::f16:
    case DType::bf16:
      if (out != DType::f32 && out != DType::f16 && out != DType::bf16) {
        return unsupported("no cutlass epilogue from " + std::string(dtype_name(in)) + " to " + std::string(dtype_name(out)));
      }
      break;
    case DType::s8:
      if (out != DType::s32) return unsupported("s8 inputs write s32 here, not " + std::string(dtype_name(out)));
      // wgmma reads 8-bit operands from shared memory k-major only.
      if (a_m_contiguous(p) || b_n_contiguous(p)) {
        return unsupported("cutlass s8 GEMMs read both operands k-major (layout nt); this problem is " + p.layout_letters());
      }
      break;
    default:
      return unsupported("no cutlass instance for " + std::string(dtype_name(in)) + " inputs (f16, bf16 and s8 only)");
  }
  if (p.k() == 0) return unsupported("k = 0: nothing to multiply (the other families scale C)");
  if (std::max({p.m(), p.n(), p.k()}) >= (std::int64_t(1) << 31)) return unsupported("a dim is 2^31 or more");
  const int bytes = input_bytes(in);
  for (const std::string& why :
       {alignment_problem("A", p.lda(), a_m_contiguous(p) ? p.m() : p.k(), bytes),
        alignment_problem("B", p.ldb(), b_n_contiguous(p) ? p.n() : p.k(), bytes),
        alignment_problem("C", p.ldc(), p.n(), int(dtype_size(out)))}) {
    if (!why.empty()) return unsupported("TMA cannot address " + why);
  }
  return Status::ok();
}

Status check_cutlass_config(const KernelConfig& c, const Problem& p) {
  if (c.rank != 0 || c.kernel != 0 || c.micro_m != 0 || c.micro_n != 0 || c.threads != 0 || c.isa != 0 || c.warps != 0 ||
      c.stages != 0 || c.split_k > 1 || c.split_reduce != 0 || c.swap_ab != 0 || c.k_warps > 1) {
    return invalid_argument(
        "cutlass configs have block_m, block_n, block_k, cluster_m, cluster_n, pp, streamk and gm (swizzle) only");
  }
  if (c.group_m != 0 && c.group_m != 1 && c.group_m != 2 && c.group_m != 4 && c.group_m != 8) {
    return unsupported("gm (the scheduler's swizzle) must be 1, 2, 4 or 8");
  }
  if (c.block_k != cutlass_block_k(p.a_type())) {
    return unsupported("block_k must be " + text(cutlass_block_k(p.a_type())) + " for " +
                       std::string(dtype_name(p.a_type())) + " (one 128-byte swizzle row of k a stage)");
  }
  if (c.pingpong != 0 && c.pingpong != 1) return invalid_argument("pp must be 0 or 1");
  if (c.stream_k != 0 && c.stream_k != 1) return invalid_argument("streamk must be 0 or 1");
  if (c.pingpong == 1 && c.stream_k == 1) return unsupported("CUTLASS's ping-pong kernel has no stream-K scheduler");
  const int rows_per_consumer = c.pingpong ? c.block_m : c.block_m / 2;
  if (c.block_m <= 0 || c.block_m > kCutlassMaxBlock || rows_per_consumer % 64 != 0 || rows_per_consumer == 0) {
    return unsupported("block_m " + text(c.block_m) + " must give each consumer warpgroup whole 64-row slices (" +
                       (c.pingpong ? "ping-pong: 64, 128 or 256" : "cooperative: 128 or 256") + ")");
  }
  const int n_step = p.a_type() == DType::s8 ? 16 : 8;
  if (c.block_n < n_step || c.block_n > kCutlassMaxBlock || c.block_n % n_step != 0) {
    return unsupported("block_n " + text(c.block_n) + " is not a wgmma n for " + std::string(dtype_name(p.a_type())) + " (" +
                       text(n_step) + " to 256 in steps of " + text(n_step) + ")");
  }
  const int accumulators = rows_per_consumer * c.block_n / 128;
  if (accumulators > kCutlassMaxAccumulatorsPerThread) {
    return unsupported(text(accumulators) + " accumulators per consumer thread would spill (bound " +
                       text(kCutlassMaxAccumulatorsPerThread) + ")");
  }
  for (std::int32_t extent : {c.cluster_m, c.cluster_n}) {
    if (extent < 0 || extent > 2) return unsupported("cluster extents must be 1 or 2");
  }
  if (std::max(c.cluster_m, 1) * std::max(c.cluster_n, 1) > 2) return unsupported("clusters of 2 CTAs at most");
  return Status::ok();
}

Status check_cutlass_device(const CudaInfo& device) {
  if (device.cc_major != 9 || device.cc_minor != 0) {
    return unsupported("CUTLASS's SM90 kernels need compute capability 9.0 (sm_90a); the device has " +
                       text(device.cc_major) + "." + text(device.cc_minor));
  }
  return Status::ok();
}

std::vector<KernelConfig> cutlass_configs(const Problem& p, SearchSpace space, const CudaInfo& device) {
  if (!check_cutlass_problem(p).is_ok() || !check_cutlass_device(device).is_ok()) return {};
  const bool exhaustive = space == SearchSpace::exhaustive;
  std::vector<KernelConfig> configs;
  for (const CutlassListEntry& e : exhaustive ? cutlass_exhaustive_entries() : cutlass_default_list()) {
    KernelConfig c = cutlass_list_config(e, p.a_type());
    // A cluster along a dim of one tile pairs each CTA with one that computes only padding.
    if ((p.m() + c.block_m - 1) / c.block_m < 2) c.cluster_m = 1;
    if ((p.n() + c.block_n - 1) / c.block_n < 2) c.cluster_n = 1;
    if (check_cutlass_config(c, p).is_ok()) configs.push_back(c);
  }
  if (!exhaustive) {
    std::int64_t most = 0;
    for (const KernelConfig& c : configs) most = std::max(most, cutlass_tiles_of(p, c));
    const std::int64_t fill = std::min<std::int64_t>(most, device.sm_count);
    std::erase_if(configs, [&](const KernelConfig& c) { return cutlass_tiles_of(p, c) * kCutlassMinFillShare < fill; });
  }
  return dedup_and_cap(configs, exhaustive ? kCutlassExhaustiveCap : kCutlassDefaultCap);
}

std::vector<std::string> cutlass_instance_defines(const Problem& p, const KernelConfig& c) {
  auto in_code = [](DType t) { return t == DType::f16 ? 0 : t == DType::bf16 ? 1 : 3; };
  auto out_code = [](DType t) { return t == DType::f32 ? 0 : t == DType::f16 ? 1 : t == DType::bf16 ? 2 : 3; };
  return {"GT_CUTLASS_IN=" + text(in_code(p.a_type())),
          "GT_CUTLASS_OUT=" + text(out_code(p.c_type())),
          "GT_CUTLASS_A_MN=" + text(a_m_contiguous(p) ? 1 : 0),
          "GT_CUTLASS_B_MN=" + text(b_n_contiguous(p) ? 1 : 0),
          "GT_CUTLASS_BM=" + text(c.block_m),
          "GT_CUTLASS_BN=" + text(c.block_n),
          "GT_CUTLASS_BK=" + text(c.block_k),
          "GT_CUTLASS_CM=" + text(std::max(c.cluster_m, 1)),
          "GT_CUTLASS_CN=" + text(std::max(c.cluster_n, 1)),
          "GT_CUTLASS_PINGPONG=" + text(c.pingpong),
          "GT_CUTLASS_STREAM_K=" + text(c.stream_k)};
}

}  // namespace gemmtune::cuda
