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
//
// Two configs: the main kernel, looked up once when prepared (the candidate gemmtune tunes
// with), and kernel=per_call, libxsmm's lookup on every call and then the kernel: what a program whose
// shapes come at run time pays per call when it uses libxsmm directly, and what `gemmtune bench`
// compares Session::gemm's dispatch-included calls with (per_call_configs). The per-call kernel
// is never a candidate: it is the main one plus the lookup.
#include <libxsmm.h>

#include "cpu_backends.h"

namespace gemmtune::cpu {
namespace {

struct Dispatch {
  libxsmm_smmfunction fn = nullptr;
  std::string why;  // when fn is null
};

// libxsmm_smmdispatch's arguments for a problem.
struct Descriptor {
  libxsmm_blasint m, n, k, lda, ldb, ldc;
  float alpha, beta;
  int flags, prefetch;
  libxsmm_smmfunction lookup() const {
    return libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
  }
};

Descriptor descriptor(const Problem& p) {
  // libxsmm's A is gemmtune's B: transposed unless B is row-major; likewise for A.
  int flags = LIBXSMM_GEMM_FLAG_NONE;
  if (p.b_layout() != Layout::row_major) flags |= LIBXSMM_GEMM_FLAG_TRANS_A;
  if (p.a_layout() != Layout::row_major) flags |= LIBXSMM_GEMM_FLAG_TRANS_B;
  return {libxsmm_blasint(p.n()), libxsmm_blasint(p.m()), libxsmm_blasint(p.k()),
          libxsmm_blasint(p.ldb()), libxsmm_blasint(p.lda()), libxsmm_blasint(p.ldc()),
          1.0f, float(p.beta()), flags, LIBXSMM_GEMM_PREFETCH_NONE};
}

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
  libxsmm_smmfunction fn = descriptor(p).lookup();
  if (fn == nullptr) return {nullptr, "libxsmm's JIT has no kernel for " + p.describe()};
  return {fn, ""};
}

constexpr int kLookedUpOnce = kKernelMain;
constexpr int kLookedUpPerCall = kKernelPerCall;

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

// The lookup on every call: libxsmm's registry, keyed by the whole descriptor, as a caller
// that knows the shape only now calls it (the descriptor's arguments are ready, as that
// caller's would be: only libxsmm's own work is timed).
class LibxsmmPerCallKernel final : public Kernel {
 public:
  explicit LibxsmmPerCallKernel(const Problem& problem) : descriptor_(descriptor(problem)) {}
  Status run(const GemmArgs& args) override {
    libxsmm_smmfunction fn = descriptor_.lookup();
    if (fn == nullptr) return Status(ErrorCode::internal, "libxsmm's lookup lost a kernel it had");
    fn(static_cast<const float*>(args.b), static_cast<const float*>(args.a), static_cast<float*>(args.c));
    return Status::ok();
  }

 private:
  Descriptor descriptor_;
};

class LibxsmmBackend final : public Backend {
 public:
  std::string_view name() const override { return "libxsmm"; }
  std::string version() const override { return LIBXSMM_CONFIG_VERSION; }
  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace) const override {
    if (!can_implement(problem, {}).is_ok()) return {};
    return {KernelConfig{}};
  }
  std::vector<KernelConfig> per_call_configs(const Problem& problem) const override {
    KernelConfig per_call;
    per_call.kernel = kLookedUpPerCall;
    if (!can_implement(problem, per_call).is_ok()) return {};
    return {per_call};
  }
  Status can_implement(const Problem& problem, const KernelConfig& config) const override {
    return kernel_for(problem, config).status();
  }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& config) const override {
    GEMMTUNE_ASSIGN_OR_RETURN(libxsmm_smmfunction fn, kernel_for(problem, config));
    if (config.kernel == kLookedUpPerCall) return std::unique_ptr<Kernel>(std::make_unique<LibxsmmPerCallKernel>(problem));
    return std::unique_ptr<Kernel>(std::make_unique<LibxsmmKernel>(fn));
  }

 private:
  // The JIT kernel for the problem (looked up once), or why the config cannot run it.
  static Result<libxsmm_smmfunction> kernel_for(const Problem& problem, const KernelConfig& config) {
    if (config.kernel != kLookedUpOnce && config.kernel != kLookedUpPerCall) {
      return unsupported("libxsmm has its kernel looked up once (the main kernel) and per_call, not " +
                         std::string(kernel_name(config.kernel)));
    }
    Dispatch d = dispatch(problem);
    if (d.fn == nullptr) return unsupported(d.why);
    return d.fn;
  }
};

}  // namespace

std::unique_ptr<Backend> make_libxsmm_backend() { return std::make_unique<LibxsmmBackend>(); }

}  // namespace gemmtune::cpu
