// Placeholder until the NVRTC template backend lands on this branch; it offers no configs.
#include "cuda_backends.h"

namespace gemmtune::cuda {
namespace {
class NvrtcBackend final : public Backend {
 public:
  std::string_view name() const override { return "cuda"; }
  std::string version() const override { return "0"; }
  std::vector<KernelConfig> configs(const Problem&, SearchSpace) const override { return {}; }
  Status can_implement(const Problem&, const KernelConfig&) const override { return unsupported("not built yet"); }
  Result<std::unique_ptr<Kernel>> prepare(const Problem&, const KernelConfig&) const override {
    return unsupported("not built yet");
  }
};
}  // namespace
std::unique_ptr<Backend> make_nvrtc_backend(const CudaInfo&) { return std::make_unique<NvrtcBackend>(); }
}  // namespace gemmtune::cuda
