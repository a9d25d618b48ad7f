// Backend "openblas": cblas_sgemm. f32 only: OpenBLAS's other GEMMs (sbgemm) do not produce
// the output dtypes gemmtune's problems ask for.
//
// OpenBLAS is loaded with dlopen, not linked, for one reason: its worker threads spin for
// OPENBLAS_THREAD_TIMEOUT (default 2^28 cycles, ~70 ms) after every call, and the library
// reads that variable only when it loads. Spinning workers steal a core from whatever runs
// next, so interleaved timing (A B A B) would charge OpenBLAS's idle spin to the other
// candidates. Before loading it we set a short spin, unless the user set one.
#include <cblas.h>
#include <dlfcn.h>

#include <cstdlib>

#include "cpu_backends.h"

namespace gemmtune::cpu {
namespace {

using SgemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, float,
                         const float*, blasint, const float*, blasint, float, float*, blasint);
using ConfigFn = char* (*)();

struct OpenblasLibrary {
  SgemmFn sgemm = nullptr;
  ConfigFn config = nullptr;
  std::string error;
};

const OpenblasLibrary& openblas() {
  static const OpenblasLibrary library = [] {
    OpenblasLibrary lib;
    // 2^18 cycles: workers still catch back-to-back calls without sleeping, but stop
    // spinning within ~0.1 ms of the last one.
    setenv("OPENBLAS_THREAD_TIMEOUT", "18", /*overwrite=*/0);
    void* handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      lib.error = std::string("cannot load libopenblas.so.0: ") + dlerror();
      return lib;
    }
    lib.sgemm = reinterpret_cast<SgemmFn>(dlsym(handle, "cblas_sgemm"));
    lib.config = reinterpret_cast<ConfigFn>(dlsym(handle, "openblas_get_config"));
    if (lib.sgemm == nullptr) lib.error = "libopenblas.so.0 has no cblas_sgemm";
    return lib;
  }();
  return library;
}

class OpenblasKernel final : public Kernel {
 public:
  explicit OpenblasKernel(const Problem& p) : p_(p) {}
  Status run(const GemmArgs& args) override {
    // Row-major C; a column-major operand is the transpose of a row-major one.
    openblas().sgemm(CblasRowMajor, p_.a_layout() == Layout::row_major ? CblasNoTrans : CblasTrans,
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
  std::string version() const override {
    return openblas().config != nullptr ? openblas().config() : "unloaded";
  }
  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace) const override {
    if (!can_implement(problem, {}).is_ok()) return {};
    return {KernelConfig{}};
  }
  Status can_implement(const Problem& problem, const KernelConfig&) const override {
    if (openblas().sgemm == nullptr) return Status(ErrorCode::unavailable, openblas().error);
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
