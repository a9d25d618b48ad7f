#include "skinny_gemv.h"

#include <algorithm>

#include "../../core/config_space.h"
#include "config_text.h"
#include "kernel_dtype_codes.h"
#include "skinny_config_space.h"

namespace gemmtune::cuda {
namespace {

// The probe split k at most 16 ways, and only where each slice keeps two steps (splits_for).
constexpr int kListMaxSplit = 16;

int pow2_ceil(std::int64_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

bool power_of_two_up_to(int v, int most) { return v >= 1 && v <= most && (v & (v - 1)) == 0; }

int step_elements_of(const Problem& p) { return p.a_type() == DType::s8 ? 512 : 256; }

// Slices of k one warp streams, the default space's rule from the probe's winners (H100, bf16,
// 132 SMs; /work/.device/10/gemv_probe.txt). Warps have groups × split tasks (a group: R rows of
// B, one slice). The best split was the largest power of two that keeps the tasks at about 16 per
// SM at m = 1 (2112 on 132 SMs):
//   4096×4096   r2u4s1.sh w8: 2048 groups, k1 (12.97 µs); r4u2s1.l1 w8: 1024, k2 (13.29);
//               r8u1s2.l1 w8: 512, k4 (13.19)
//   4096×14336  r8u1s2.l1 w4: 512, k4 (40.99); r2u4s1.sh w8: 2048, k1 (42.94)
//   14336×4096  r4u2s1.l1 w4: 3584, k1 (41.08); r2u4s1.sh w8: 7168, k1 (41.61)
// and about 8 per SM at m = 8, where a warp's registers double and half as many warps stay
// resident (r4u2s1.l1: 95 registers at m 1, 209 at m 8):
//   4096×4096   r4u2s1.l1 w4: 1024, k1 (17.10);  4096×14336  r4u2s1.l1 w8: 1024, k1 (50.85)
// One miss: 4096×14336 at m 1, r4u2s1.l1 w8 won at k4 (41.47), the rule says k2. m 2 and 4 were
// not timed; they take m 1's 16 (r4u2s1.l1 has 154 registers at m 4).
std::int64_t target_tasks(const GemvInstance& g, const CudaInfo& device) {
  return std::int64_t(std::max(1, device.sm_count)) * (g.rows_a <= 4 ? 16 : 8);
}

int split_by_rule(const GemvInstance& g, const Problem& p, const CudaInfo& device) {
  const std::int64_t groups = g.groups(p.n());
  const std::int64_t steps = g.k_steps(p.k());
  int split = 1;
  while (split * 2 <= kListMaxSplit && steps >= 2 * (split * 2) && groups * split * 2 <= target_tasks(g, device)) {
    split *= 2;
  }
  return split;
}

// The grid by the same data: fill where the tasks take one round (every SM gets CTAs: 4096×14336
// m 1 r8u1s2.l1 w4 k4 fill; m 8 4096×4096 and 4096×14336 fill), balanced where warps take
// several rounds of groups, so that none streams one more than the rest (m 8 14336×4096:
// r2u4s1.sh w8 balanced 53.74 µs, the best fill 56.18).
bool fill_by_rule(const GemvInstance& g, const Problem& p, const CudaInfo& device) {
  return g.groups(p.n()) * g.split_k <= target_tasks(g, device);
}

KernelConfig config_of(const GemvListEntry& e, const Problem& p) {
  KernelConfig c;
  c.kernel = kKernelGemv;
  c.block_m = pow2_ceil(std::max<std::int64_t>(1, p.m()));
  c.warps = e.warps;
  c.block_n = e.rows_b * e.warps;
  c.block_k = e.steps * step_elements_of(p);
  c.stages = e.stages;
  c.split_k = 1;
  c.a_source = e.a_shared ? kASourceSmem : kASourceL1;
  return c;
}

bool offered(const KernelConfig& c, const Problem& p, const CudaInfo& device) {
  return check_gemv_config_shape(c, p).is_ok() && check_gemv_limits(c, p, device).is_ok();
}

}  // namespace

std::int64_t GemvInstance::shared_bytes(std::int64_t k) const {
  if (!a_shared) return 0;
  const std::int64_t slice_steps = (k_steps(k) + split_k - 1) / split_k;
  return std::int64_t(rows_a) * slice_steps * 512;
}

std::int64_t GemvInstance::counters_offset(std::int64_t n) const {
  return split_k > 1 ? std::int64_t(split_k) * groups(n) * pow2_ceil(std::int64_t(rows_a) * rows_b) * 4 : 0;
}

std::int64_t GemvInstance::workspace_bytes(std::int64_t n) const {
  return split_k > 1 ? counters_offset(n) + groups(n) * std::int64_t(sizeof(int)) : 0;
}

int GemvInstance::registers_estimate() const {
  // Batches in flight (4 registers a 16-byte vector, and about as many again for the converted
  // values and load addresses), the accumulators with their reduce-scatter copy (R·M each), and
  // indices. At least 3 above each of the 25 variants the probe compiled at M ≤ 8 (ptxas -v,
  // sm_90a, __launch_bounds__(256, 1)): r2u4s1.sh 80/94/105/121 registers at M 1/2/4/8 (estimate
  // 110/118/134/166), r4u2s1.l1 95/127/154/209 (118/134/166/230), r8u1s2.l1 124/187 at M 1/2
  // (182/214), r8u2s1.l1 211 at M 2 (214). r8u1s2.l1 at M 4 and 8 (278, 406) is not offered; the
  // probe compiled no r8 row above M 2. The price: r4u2s2.sh at M 8 (179 measured, 278) neither.
  return 54 + 6 * rows_b * steps * stages + 4 * rows_b * rows_a;
}

std::int64_t GemvInstance::grid_x(std::int64_t n, int sms, int ctas_per_sm) const {
  const std::int64_t g = groups(n);
  const std::int64_t fill_ctas = std::max<std::int64_t>(1, std::int64_t(std::max(1, sms)) * std::max(1, ctas_per_sm) / split_k);
  if (fill) return std::max<std::int64_t>(1, std::min(fill_ctas, g));
  const std::int64_t rounds = (g + fill_ctas * warps - 1) / (fill_ctas * warps);
  return std::max<std::int64_t>(1, (g + rounds * warps - 1) / (rounds * warps));
}

std::vector<std::string> GemvInstance::options(const std::string& arch) const {
  auto define = [](const char* name, std::int64_t value) { return std::string("-D") + name + "=" + std::to_string(value); };
  return {"--gpu-architecture=" + arch,
          "-std=c++17",
          "-default-device",
          define("GV_ENTRY", 1),
          define("GV_IN", in_code),
          define("GV_OUT", out_code),
          define("GV_M", rows_a),
          define("GV_R", rows_b),
          define("GV_U", steps),
          define("GV_STAGES", stages),
          define("GV_A_SHARED", a_shared),
          define("GV_THREADS", threads())};
}

GemvInstance gemv_instance(const Problem& p, const KernelConfig& c) {
  GemvInstance g;
  g.in_code = input_code(p.a_type());
  g.out_code = output_code(p.c_type());
  g.rows_a = std::max(1, c.block_m);
  g.warps = std::max(1, c.warps);
  g.rows_b = std::max(1, c.block_n / g.warps);
  g.steps = std::max(1, c.block_k / step_elements_of(p));
  g.stages = c.stages;
  g.a_shared = c.a_source == kASourceSmem;
  g.split_k = std::max(1, c.split_k);
  g.fill = c.grid == 1;
  return g;
}

const std::vector<GemvListEntry>& gemv_default_list() {
  // {R, U, stages, A in shared memory, warps}: the probe's three best variants at m 1 (2.53-2.59
  // TB/s on 4096×4096, 2.82-2.87 on the 14336 shapes), each with 4 and 8 warps; the winners at
  // m 8 are among them (r4u2s1.l1 w4 and w8, r2u4s1.sh w8). r8 rows drop out above m 2.
  static const std::vector<GemvListEntry> list = {
      {2, 4, 1, true, 8},  {4, 2, 1, false, 4}, {8, 1, 2, false, 4},
      {2, 4, 1, true, 4},  {4, 2, 1, false, 8}, {8, 1, 2, false, 8},
  };
  return list;
}

std::vector<GemvListEntry> gemv_exhaustive_entries() {
  // The probe's variants (bench/probes/skinny/kernels.cu, add_variants) × 4 and 8 warps.
  struct Variant {
    int rows_b, steps, stages;
    bool a_shared;
  };
  static constexpr Variant kVariants[] = {{4, 2, 1, true},  {4, 2, 2, true},  {4, 1, 2, true}, {2, 4, 1, true},
                                          {4, 2, 1, false}, {4, 1, 2, false}, {8, 1, 1, true}, {8, 2, 1, false},
                                          {8, 1, 2, false}, {2, 2, 2, true}};
  std::vector<GemvListEntry> entries;
  for (const Variant& v : kVariants)
    for (int warps : {4, 8}) entries.push_back({v.rows_b, v.steps, v.stages, v.a_shared, warps});
  return entries;
}

Status check_gemv_problem(const Problem& p) {
  GEMMTUNE_RETURN_IF_ERROR(check_skinny_problem(p));  // the family's dtypes and dims
  if (p.m() > kGemvMaxRows) return unsupported("m " + text(p.m()) + " is above gemv's " + text(kGemvMaxRows));
  if (p.a_layout() != Layout::row_major || p.b_layout() != Layout::col_major) {
    return unsupported("gemv needs k contiguous in A and B (the nt layout)");
  }
  // Every lane loads 16 bytes of a row at a time; a row must start on a 16-byte boundary.
  const std::int64_t esize = dtype_size(p.a_type());
  if ((p.lda() * esize) % 16 != 0 || (p.ldb() * esize) % 16 != 0) {
    return unsupported("gemv's 16-byte loads need lda and ldb to keep every row 16-byte aligned (lda " + text(p.lda()) +
                       ", ldb " + text(p.ldb()) + ")");
  }
  return Status::ok();
}

Status check_gemv_config_shape(const KernelConfig& c, const Problem& p) {
  if (c.kernel != kKernelGemv || c.rank != 0 || c.micro_m != 0 || c.micro_n != 0 || c.threads != 0 || c.isa != 0 ||
      c.group_m != 0 || c.cluster_m != 0 || c.cluster_n != 0 || c.swap_ab != 0 || c.pingpong != 0 || c.k_warps != 0 ||
      c.split_reduce != 0) {
    return invalid_argument(
        "gemv's fields are kernel, block_m, block_n, block_k, stages, warps, split_k, a_source and grid");
  }
  if (!power_of_two_up_to(c.block_m, int(kGemvMaxRows)) || c.block_m < p.m()) {
    return unsupported("block_m " + text(c.block_m) + " must be a power of two from m (" + text(p.m()) + ") to " +
                       text(kGemvMaxRows));
  }
  if (c.warps != 2 && c.warps != 4 && c.warps != 8) return unsupported("warps must be 2, 4 or 8");
  const int rows_b = c.block_n / c.warps;
  if (c.block_n != rows_b * c.warps || (rows_b != 2 && rows_b != 4 && rows_b != 8)) {
    return unsupported("block_n " + text(c.block_n) + " must be warps × 2, 4 or 8 rows");
  }
  const int step = step_elements_of(p);
  const int steps = c.block_k / step;
  if (c.block_k != steps * step || (steps != 1 && steps != 2 && steps != 4)) {
    return unsupported("block_k " + text(c.block_k) + " must be 1, 2 or 4 steps of " + text(step));
  }
  if (c.a_source != kASourceSmem && c.a_source != kASourceL1) return unsupported("a_source must be smem or l1");
  if (c.grid != 0 && c.grid != 1) return unsupported("grid must be balanced or fill");
  GEMMTUNE_RETURN_IF_ERROR(check_skinny_stages(c.stages));
  if (c.split_k < 1) return unsupported("split_k must be 1 or more");
  GEMMTUNE_RETURN_IF_ERROR(check_skinny_split_k(c.split_k, (p.k() + step - 1) / step, "steps"));
  return check_skinny_registers(gemv_instance(p, c).registers_estimate());
}

Status check_gemv_limits(const KernelConfig& c, const Problem& p, const CudaInfo& device) {
  GEMMTUNE_RETURN_IF_ERROR(check_skinny_device(device));
  const std::int64_t shared = gemv_instance(p, c).shared_bytes(p.k());
  if (shared > device.shared_memory_per_block_optin) {
    return unsupported("A's slice needs " + text(shared) + " bytes of shared memory, the device allows " +
                       text(device.shared_memory_per_block_optin) + " per block (split k, or a=l1)");
  }
  return Status::ok();
}

std::vector<KernelConfig> gemv_configs(const Problem& p, SearchSpace space, const CudaInfo& device) {
  if (!check_gemv_problem(p).is_ok()) return {};
  const bool exhaustive = space == SearchSpace::exhaustive;
  std::vector<KernelConfig> configs;
  for (const GemvListEntry& e : exhaustive ? gemv_exhaustive_entries() : gemv_default_list()) {
    KernelConfig c = config_of(e, p);
    if (!check_gemv_config_shape(c, p).is_ok()) continue;
    if (!exhaustive) {
      GemvInstance g = gemv_instance(p, c);
      c.split_k = g.split_k = split_by_rule(g, p, device);
      c.grid = fill_by_rule(g, p, device) ? 1 : 0;
      if (offered(c, p, device)) configs.push_back(c);
      continue;
    }
    const std::int64_t steps = (p.k() + step_elements_of(p) - 1) / step_elements_of(p);
    for (int split : {1, 2, 4, 8, 16}) {
      if (split > 1 && steps < 2 * split) continue;
      for (int grid : {0, 1}) {
        c.split_k = split;
        c.grid = grid;
        if (offered(c, p, device)) configs.push_back(c);
      }
    }
  }
  return dedup_and_cap(configs, exhaustive ? kGemvExhaustiveCap : kGemvDefaultCap);
}

}  // namespace gemmtune::cuda
