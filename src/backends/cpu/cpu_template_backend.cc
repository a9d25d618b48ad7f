// Backend "cpu": gemmtune's own kernels (cpu_kernel_impl.h) over the config space of
// cpu_config_space.cc.
#include "cpu_backends.h"
#include "cpu_config_space.h"
#include "cpu_kernels.h"

#ifndef GEMMTUNE_CPU_KERNELS_HASH
#define GEMMTUNE_CPU_KERNELS_HASH "unversioned"
#endif

namespace gemmtune::cpu {
namespace {

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

// The kernel lookup's column count: vectors for the packed and rows kernels, columns for dot.
int tile_columns(const KernelConfig& c) {
  return c.algo == kAlgoDirectDot ? c.micro_n : c.micro_n / (vector_bytes(c.isa) / 4);
}

class CpuTemplateBackend final : public Backend {
 public:
  explicit CpuTemplateBackend(const CpuInfo& cpu) : cpu_(cpu) {}
  std::string_view name() const override { return "cpu"; }
  // A hash of the kernel sources, computed by CMake: edited kernels invalidate stored picks.
  std::string version() const override { return GEMMTUNE_CPU_KERNELS_HASH; }

  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace space) const override {
    return cpu_configs(problem, space, cpu_);
  }

  Status can_implement(const Problem& p, const KernelConfig& c) const override {
    if (c.isa < 0 || c.isa > cpu_.best_isa()) {
      return unsupported("isa " + std::string(cpu_isa_name(c.isa)) + " is not available on this CPU");
    }
    if (c.algo == kAlgoDirectRows && p.b_layout() != Layout::row_major) {
      return unsupported("the direct rows kernel reads B row-major");
    }
    if (c.algo == kAlgoDirectDot && (p.a_layout() != Layout::row_major || p.b_layout() != Layout::col_major)) {
      return unsupported("the direct dot kernel reads A row-major and B column-major");
    }
    if (c.algo < kAlgoPacked || c.algo > kAlgoDirectDot) return unsupported("unknown cpu algo " + std::to_string(c.algo));
    const int lanes = vector_bytes(c.isa) / 4;
    const bool whole_vectors = c.algo == kAlgoDirectDot || c.micro_n % lanes == 0;
    if (c.micro_m <= 0 || c.micro_n <= 0 || !whole_vectors) {
      return unsupported("register tile " + std::to_string(c.micro_m) + "x" + std::to_string(c.micro_n) +
                         " is not whole vectors of " + std::to_string(lanes) + " lanes");
    }
    if (find_cpu_kernel(c.isa, c.algo, p.a_type(), p.c_type(), c.micro_m, tile_columns(c)) == nullptr) {
      return unsupported("no kernel compiled for tile " + std::to_string(c.micro_m) + "x" +
                         std::to_string(c.micro_n) + " and " + std::string(dtype_name(p.a_type())) + "->" +
                         std::string(dtype_name(p.c_type())));
    }
    if (c.algo == kAlgoPacked && (c.block_m <= 0 || c.block_m % c.micro_m != 0 || c.block_n <= 0 ||
                                  c.block_n % c.micro_n != 0 || c.block_k <= 0)) {
      return unsupported("blocks must be positive multiples of the register tile");
    }
    if (c.threads < 1 || c.threads > 1024) return unsupported("threads must be in [1, 1024]");
    return Status::ok();
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& p, const KernelConfig& c) const override {
    GEMMTUNE_RETURN_IF_ERROR(can_implement(p, c));
    CpuGemmParams params;
    params.m = p.m();
    params.n = p.n();
    params.k = p.k();
    params.lda = p.lda();
    params.ldb = p.ldb();
    params.ldc = p.ldc();
    params.a_row_major = p.a_layout() == Layout::row_major;
    params.b_row_major = p.b_layout() == Layout::row_major;
    params.alpha = p.alpha();
    params.beta = p.beta();
    params.block_m = c.block_m;
    params.block_n = c.block_n;
    params.block_k = c.block_k;
    params.threads = c.threads;
    CpuGemmFn fn = find_cpu_kernel(c.isa, c.algo, p.a_type(), p.c_type(), c.micro_m, tile_columns(c));
    return std::unique_ptr<Kernel>(std::make_unique<CpuTemplateKernel>(fn, params));
  }

 private:
  CpuInfo cpu_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_template_backend(const CpuInfo& cpu) {
  return std::make_unique<CpuTemplateBackend>(cpu);
}

}  // namespace gemmtune::cpu
