// Session's benchmarking helpers: timing public kernels, and gemm() itself beside peers, on the
// device's harness (what `gemmtune bench` and the Python module's timing use).
#include "gemmtune/session.h"

#include "../core/backend.h"
#include "../core/harness.h"

namespace gemmtune {

namespace {

// A public GemmKernel seen through the internal Kernel interface, for the harness.
class GemmKernelAdapter final : public Kernel {
 public:
  explicit GemmKernelAdapter(GemmKernel& kernel) : kernel_(kernel) {}
  Status run(const GemmArgs& args) override { return kernel_.run(args.a, args.b, args.c, args.stream); }

 private:
  GemmKernel& kernel_;
};

// gemm() as a GemmKernel, so the dispatch path is timed like any other kernel.
class DispatchKernel final : public GemmKernel {
 public:
  DispatchKernel(Session& session, const Problem& problem) : session_(session), problem_(problem) {}
  Status run(const void* a, const void* b, void* c, void* stream) override {
    return session_.gemm(problem_, a, b, c, stream);
  }
  const std::string& backend() const override { return name_; }
  const KernelConfig& config() const override { return config_; }

 private:
  Session& session_;
  Problem problem_;
  std::string name_ = "gemmtune";
  KernelConfig config_;
};

}  // namespace

std::vector<Result<TimingStats>> Session::time_kernels(const Problem& problem, const std::vector<GemmKernel*>& kernels,
                                                       const TimingOptions& timing) {
  auto fail_all = [&](const Status& status) {
    return std::vector<Result<TimingStats>>(kernels.size(), Result<TimingStats>(status));
  };
  auto harness = create_harness(device());
  if (!harness.is_ok()) return fail_all(harness.status());
  Status ready = (*harness)->prepare(problem, 0x5eed0001);
  if (!ready.is_ok()) return fail_all(ready);
  std::vector<GemmKernelAdapter> adapters;
  adapters.reserve(kernels.size());
  std::vector<Kernel*> timed;
  for (GemmKernel* kernel : kernels) timed.push_back(&adapters.emplace_back(*kernel));
  return (*harness)->time(timed, timing);
}

std::vector<Result<TimingStats>> Session::time_with_peers(const Problem& problem, const std::vector<GemmKernel*>& peers,
                                                          const TimingOptions& timing) {
  Status prepared = prepare(problem);
  if (!prepared.is_ok()) return std::vector<Result<TimingStats>>(peers.size() + 1, Result<TimingStats>(prepared));
  DispatchKernel ours(*this, problem);
  std::vector<GemmKernel*> kernels = {&ours};
  kernels.insert(kernels.end(), peers.begin(), peers.end());
  return time_kernels(problem, kernels, timing);
}

}  // namespace gemmtune
