// Backend "openblas": cblas_sgemm. f32 only: OpenBLAS's other GEMMs (sbgemm) do not produce
// the output dtypes gemmtune's problems ask for.
#include <cblas.h>

#include "cpu_backends.h"

namespace gemmtune::cpu {
namespace {

class OpenblasKernel final : public Kernel {
 public:
  explicit OpenblasKernel(const Problem& p) : p_(p) {}
  Status run(const GemmArgs& args) override {
    // Row-major C; a column-major operand is the transpose of a row-major one.
    cblas_sgemm(CblasRowMajor, p_.a_layout() == Layout::row_major ? CblasNoTrans : CblasTrans,
                p_.b_layout() == Layout::row_major ? CblasNoTrans : CblasTrans, blasint(p_.m()), blasint(p_.n()),
                blasint(p_.k()), float(p_.alpha()), static_cast<const float*>(args.a), blasint(p_.lda()),
                static_cast<const float*>(args.b), blasint(p_.ldb()), float(p_.beta()), static_cast<float*>(args.c),
                blasint(p_.ldc()));
    return Status::ok();
  }

 private:
  Problem p_;
};

class OpenblasBackend final : public Backend {
 public:
  std::string_view name() const override { return "openblas"; }
  std::string version() const override { return openblas_get_config(); }
  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace) const override {
    if (!can_implement(problem, {}).is_ok()) return {};
    return {KernelConfig{}};
  }
  Status can_implement(const Problem& problem, const KernelConfig&) const override {
    if (problem.a_type() != DType::f32 || problem.c_type() != DType::f32) {
      return unsupported("openblas backend does f32 only");
    }
    return Status::ok();
  }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& config) const override {
    GEMMTUNE_RETURN_IF_ERROR(can_implement(problem, config));
    return std::unique_ptr<Kernel>(std::make_unique<OpenblasKernel>(problem));
  }
};

}  // namespace

std::unique_ptr<Backend> make_openblas_backend() { return std::make_unique<OpenblasBackend>(); }

}  // namespace gemmtune::cpu
