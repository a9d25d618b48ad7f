// Where candidates are checked and timed: host memory and the wall clock on the CPU; device
// memory and CUDA events on a GPU. The autotuner is the same for every device; only the
// harness differs. Each platform's registry makes the harness for its devices.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend.h"
#include "gemmtune/timing.h"
#include "verify.h"

namespace gemmtune {

class Harness {
 public:
  virtual ~Harness() = default;
  // Allocates operands for the problem, fills the inputs with random values from `seed` and
  // computes the reference (on sampled rows) that check() compares with.
  virtual Status prepare(const Problem& problem, std::uint64_t seed) = 0;
  // The operands a kernel runs on.
  virtual GemmArgs args() = 0;
  // C back to its initial state (poisoned when beta == 0).
  virtual void reset_c() = 0;
  // Checks C after one run: written everywhere, nothing outside it touched, within tolerance.
  virtual VerifyOutcome check() = 0;
  // Times the kernels on args(), interleaved; one result per kernel.
  virtual std::vector<Result<TimingStats>> time(const std::vector<Kernel*>& kernels, const TimingOptions& options) = 0;
};

// The host harness: TestBuffers, the double-precision reference, time_interleaved.
std::unique_ptr<Harness> make_host_harness();

// The harness for a device; defined by the platform registry, not by core.
Result<std::unique_ptr<Harness>> create_harness(const DeviceInfo& device);

}  // namespace gemmtune
