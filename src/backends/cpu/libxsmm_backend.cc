// Backend "libxsmm": libxsmm's JIT-generated small-matrix kernels (libxsmm_smmdispatch), a peer
// for small shapes. f32 only, and only the layouts and scalars its JIT takes.
//
// libxsmm is column-major: C = A·B there is, for gemmtune's row-major C, Cᵀ = Bᵀ·Aᵀ. A
// row-major B (k × n) read column-major is Bᵀ (n × k) and a row-major A is Aᵀ, so the "nn"
// problem is libxsmm's NN kernel with M = n, N = m, and A and B swapped. A column-major operand
// needs libxsmm's transpose flag, which its JIT may refuse: then the backend says so.
//
// The library is linked with libxsmmnoblas: when its JIT cannot take a shape, dispatch returns
// no kernel rather than falling back to a BLAS it would have to link.
#include <libxsmm.h>

#include "cpu_backends.h"

namespace gemmtune::cpu {
namespace {

struct Dispatch {
  libxsmm_smmfunction fn = nullptr;
  std::string why;  // when fn is null
};

Dispatch dispatch(const Problem& p) {
  if (p.a_type() != DType::f32 || p.c_type() != DType::f32) return {nullptr, "libxsmm backend does f32 only"};
  if (p.m() == 0 || p.n() == 0 || p.k() == 0) return {nullptr, "libxsmm is not used for zero-sized dims"};
  if (p.alpha() != 1.0 || (p.beta() != 0.0 && p.beta() != 1.0)) {
    return {nullptr, "libxsmm's JIT takes alpha = 1 and beta in {0, 1} only"};
  }
  static const bool initialised = [] {
    libxsmm_init();
    return true;
  }();
  (void)initialised;
  // libxsmm's A is gemmtune's B: transposed unless B is row-major; likewise for A.
  int flags = LIBXSMM_GEMM_FLAG_NONE;
  if (p.b_layout() != Layout::row_major) flags |= LIBXSMM_GEMM_FLAG_TRANS_A;
  if (p.a_layout() != Layout::row_major) flags |= LIBXSMM_GEMM_FLAG_TRANS_B;
  const libxsmm_blasint m = libxsmm_blasint(p.n()), n = libxsmm_blasint(p.m()), k = libxsmm_blasint(p.k());
  const libxsmm_blasint lda = libxsmm_blasint(p.ldb()), ldb = libxsmm_blasint(p.lda()), ldc = libxsmm_blasint(p.ldc());
  const float alpha = 1.0f, beta = float(p.beta());
  const int prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
  libxsmm_smmfunction fn = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
  if (fn == nullptr) return {nullptr, "libxsmm's JIT has no kernel for " + p.describe()};
  return {fn, ""};
}

class LibxsmmKernel final : public Kernel {
 public:
  explicit LibxsmmKernel(libxsmm_smmfunction fn) : fn_(fn) {}
  Status run(const GemmArgs& args) override {
    fn_(static_cast<const float*>(args.b), static_cast<const float*>(args.a), static_cast<float*>(args.c));
    return Status::ok();
  }

 private:
  libxsmm_smmfunction fn_;
};

class LibxsmmBackend final : public Backend {
 public:
  std::string_view name() const override { return "libxsmm"; }
  std::string version() const override { return LIBXSMM_CONFIG_VERSION; }
  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace) const override {
    if (!can_implement(problem, {}).is_ok()) return {};
    return {KernelConfig{}};
  }
  Status can_implement(const Problem& problem, const KernelConfig&) const override {
    Dispatch d = dispatch(problem);
    return d.fn != nullptr ? Status::ok() : unsupported(d.why);
  }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig&) const override {
    Dispatch d = dispatch(problem);
    if (d.fn == nullptr) return unsupported(d.why);
    return std::unique_ptr<Kernel>(std::make_unique<LibxsmmKernel>(d.fn));
  }
};

}  // namespace

std::unique_ptr<Backend> make_libxsmm_backend() { return std::make_unique<LibxsmmBackend>(); }

}  // namespace gemmtune::cpu
