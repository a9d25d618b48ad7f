// From a problem to the fastest correct kernel: gather every backend's configs, prepare them
// in parallel, verify each against the reference, time the survivors, pick.
#pragma once

#include <memory>
#include <vector>

#include "backend.h"
#include "gemmtune/session.h"
#include "gemmtune/tune_report.h"

namespace gemmtune {

struct TuneOutcome {
  TuneReport report;
  // The picked kernel, ready to run; null when no choice succeeded.
  std::shared_ptr<Kernel> kernel;
};

TuneOutcome autotune(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                     const TuneOptions& options);

// The pick among timed choices: the fastest median, unless an earlier choice (in the fixed
// order) is within the noise band of it, max(noise_band × fastest, 2 × fastest's MAD); then
// the earliest such choice. -1 when none is ok.
int pick_best(const std::vector<ChoiceReport>& choices, double noise_band);

}  // namespace gemmtune
