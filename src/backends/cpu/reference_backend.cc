// Backend "reference": the verifier's own double-accumulating loop, offered as a choice so
// that every tuning table shows the floor it is checked against.
#include "../../core/reference_gemm.h"
#include "cpu_backends.h"

namespace gemmtune::cpu {
namespace {

// The reference runs at a few GFLOP/s; above this it would dominate tuning time while never
// winning, so it declines (the verifier still uses it, on sampled rows).
constexpr double kMaxReferenceFlops = double(1 << 28);

class ReferenceKernel final : public Kernel {
 public:
  explicit ReferenceKernel(const Problem& problem) : problem_(problem) {}
  Status run(const GemmArgs& args) override {
    reference_gemm(problem_, args.a, args.b, args.c);
    return Status::ok();
  }

 private:
  Problem problem_;
};

class ReferenceBackend final : public Backend {
 public:
  std::string_view name() const override { return "reference"; }
  std::string version() const override { return "1"; }
  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace) const override {
    if (!can_implement(problem, {}).is_ok()) return {};
    return {KernelConfig{}};
  }
  Status can_implement(const Problem& problem, const KernelConfig&) const override {
    if (problem.flops() > kMaxReferenceFlops) {
      return unsupported("reference declines problems over 2^28 flops (too slow to time)");
    }
    return Status::ok();
  }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& config) const override {
    GEMMTUNE_RETURN_IF_ERROR(can_implement(problem, config));
    return std::unique_ptr<Kernel>(std::make_unique<ReferenceKernel>(problem));
  }
};

}  // namespace

std::unique_ptr<Backend> make_reference_backend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace gemmtune::cpu
