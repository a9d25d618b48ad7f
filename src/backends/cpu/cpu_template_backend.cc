// Backend "cpu": gemmtune's own kernels (cpu_kernels.h) over the config space of
// cpu_config_space.cc.
#include <string>
#include <tuple>

#include "cpu_backends.h"
#include "cpu_config_space.h"
#include "cpu_kernel_families.h"
#include "cpu_kernel_levels.h"
#include "cpu_kernels.h"

#ifndef GEMMTUNE_CPU_KERNELS_HASH
#define GEMMTUNE_CPU_KERNELS_HASH "unversioned"
#endif

namespace gemmtune::cpu {
namespace {

// The kernel is called straight through a function pointer with its parameters baked in: the
// whole per-call cost above the arithmetic is this virtual call and that indirect one.
class CpuTemplateKernel final : public Kernel {
 public:
  CpuTemplateKernel(CpuGemmFn fn, CpuGemmParams params) : fn_(fn), params_(params) {}
  Status run(const GemmArgs& args) override {
    fn_(params_, args.a, args.b, args.c);
    return Status::ok();
  }

 private:
  CpuGemmFn fn_;
  CpuGemmParams params_;
};

CpuGemmFn lookup(const Problem& p, const KernelConfig& c) {
  const TileKey key = tile_key(c.kernel, c.micro_m, c.micro_n, vector_lanes(c.isa));
  return find_cpu_kernel(c.isa, c.kernel, p.a_type(), p.c_type(), key.first, key.second);
}

// Threads tile C as gm × gn blocks, each thread packing the rows of A and the columns of B its
// block needs: the split whose packing costs a thread least, among those that give every thread
// at least one register tile. An operand contiguous along k (an nn product's A) is transposed
// as it is packed, the costlier pack, so it counts twice (a round weight: what was measured is
// the split it picks): at 256³ nn on the Zen 3 VM, splitting m (each thread transposes half of
// A and copies all of B) ran 7-9 % faster than splitting n, which the tie used to pick
// (bench/results/2026-11-27-cpu-amd-zen3.md).
std::pair<int, int> thread_grid(const Problem& p, const KernelConfig& c, const CpuGemmParams& strides) {
  const int threads = c.threads;
  const std::int64_t row_tiles = (p.m() + c.micro_m - 1) / c.micro_m, col_tiles = (p.n() + c.micro_n - 1) / c.micro_n;
  const double a_cost = strides.a_ks == 1 ? 2.0 : 1.0, b_cost = strides.b_ks == 1 ? 2.0 : 1.0;
  std::pair<int, int> best{threads, 1};
  double best_cost = -1;
  for (int gm = 1; gm <= threads; ++gm) {
    if (threads % gm != 0) continue;
    const int gn = threads / gm;
    const bool fits = row_tiles >= gm && col_tiles >= gn;
    const double cost = a_cost * double(p.m()) / gm + b_cost * double(p.n()) / gn + (fits ? 0 : 1e18);
    if (best_cost < 0 || cost < best_cost) best = {gm, gn}, best_cost = cost;
  }
  return best;
}

class CpuTemplateBackend final : public Backend {
 public:
  explicit CpuTemplateBackend(const CpuInfo& cpu) : cpu_(cpu) {}
  std::string_view name() const override { return "cpu"; }
  // A hash of the kernel sources' code (their comments and layout left out), computed by CMake:
  // edited kernels invalidate stored picks.
  std::string version() const override { return GEMMTUNE_CPU_KERNELS_HASH; }

  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace space) const override {
    return cpu_configs(problem, space, cpu_);
  }

  Status can_implement(const Problem& p, const KernelConfig& c) const override {
    if (c.isa < 0 || c.isa > cpu_.best_isa()) {
      return unsupported("isa " + std::string(cpu_isa_name(c.isa)) + " is not available on this CPU");
    }
    const CpuKernelFamily* family = cpu_kernel_family(c.kernel);
    if (family == nullptr) return unsupported("kernel " + std::string(kernel_name(c.kernel)) + " is not a cpu kernel");
    if (std::string why = family->cannot_run(p, cpu_strides(p), c, vector_lanes(c.isa)); !why.empty()) {
      return unsupported(why);
    }
    if (lookup(p, c) == nullptr) {
      return unsupported("no kernel compiled for tile " + std::to_string(c.micro_m) + "x" +
                         std::to_string(c.micro_n) + " and " + std::string(dtype_name(p.a_type())) + "->" +
                         std::string(dtype_name(p.c_type())));
    }
    if (c.threads < 1 || c.threads > 1024) return unsupported("threads must be in [1, 1024]");
    return Status::ok();
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& p, const KernelConfig& c) const override {
    GEMMTUNE_RETURN_IF_ERROR(can_implement(p, c));
    CpuGemmParams params = cpu_strides(p);
    params.m = p.m();
    params.n = p.n();
    params.k = p.k();
    params.alpha = p.alpha();
    params.beta = p.beta();
    params.block_m = c.block_m;
    params.block_n = c.block_n;
    params.block_k = c.block_k;
    params.threads = c.threads;
    std::tie(params.grid_m, params.grid_n) = thread_grid(p, c, params);
    params.b_lines_in_l1 =
        b_lines_in_l1(l1_geometry(), p.k(), params.b_ks * std::int64_t(dtype_size(p.b_type())));
    CpuGemmFn fn = lookup(p, c);
    return std::unique_ptr<Kernel>(std::make_unique<CpuTemplateKernel>(fn, params));
  }

 private:
  CpuInfo cpu_;
};

}  // namespace

CpuGemmParams cpu_strides(const Problem& p) {
  CpuGemmParams s;
  const bool a_rows = p.a_layout() == Layout::row_major, b_rows = p.b_layout() == Layout::row_major;
  s.a_rs = a_rows ? p.lda() : 1;
  s.a_ks = a_rows ? 1 : p.lda();
  s.b_ks = b_rows ? p.ldb() : 1;
  s.b_cs = b_rows ? 1 : p.ldb();
  s.ldc = p.ldc();
  // A dim of extent 1 is never stepped along, so its stride is free: making it 1 lets more
  // kernels take the problem (a 1-column B is contiguous along k whatever its layout).
  if (p.m() == 1) s.a_rs = 1;
  if (p.n() == 1) s.b_cs = 1;
  if (p.k() == 1) s.a_ks = s.b_ks = 1;
  return s;
}

std::unique_ptr<Backend> make_cpu_template_backend(const CpuInfo& cpu) {
  return std::make_unique<CpuTemplateBackend>(with_compiled_isas(cpu));
}

}  // namespace gemmtune::cpu
