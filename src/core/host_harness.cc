#include <exception>
#include <optional>

#include "harness.h"

namespace gemmtune {
namespace {

class HostHarness final : public Harness {
 public:
  Status prepare(const Problem& problem, std::uint64_t seed) override {
    problem_.emplace(problem);
    buffers_.emplace(problem, seed);
    reference_ = compute_reference(problem, *buffers_);
    return Status::ok();
  }
  GemmArgs args() override { return {buffers_->a(), buffers_->b(), buffers_->c(), nullptr}; }
  void reset_c() override { buffers_->reset_c(); }
  VerifyOutcome check() override { return check_output(*problem_, *buffers_, reference_); }
  std::vector<Result<TimingStats>> time(const std::vector<Kernel*>& kernels, const TimingOptions& options) override {
    std::vector<std::function<Status()>> calls;
    const GemmArgs operands = args();
    for (Kernel* kernel : kernels) calls.push_back([kernel, operands] { return run_guarded(*kernel, operands); });
    return time_interleaved(calls, options);
  }

 private:
  std::optional<Problem> problem_;
  std::optional<TestBuffers> buffers_;
  Reference reference_;
};

}  // namespace

std::unique_ptr<Harness> make_host_harness() { return std::make_unique<HostHarness>(); }

}  // namespace gemmtune
