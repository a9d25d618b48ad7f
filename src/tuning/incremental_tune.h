// Re-tuning what the store does not cover yet: when a backend gains configs, or one backend's
// version changes, only the choices without a valid stored time are prepared and timed.
#pragma once

#include <vector>

#include "autotuner.h"

namespace gemmtune {

// Tunes `problem` running only the choices that `reusable` (stored, still-valid choices) does
// not hold, plus the fastest stored one, which is timed again beside them. The report lists
// every choice, stored and fresh, in the fixed order. The pick is the fresh tuning's: every
// other stored choice was slower than the re-timed one, or tied with it, when stored. Only when
// that tuning picked nothing do the stored times decide (pick_best). The kernel returned is the
// pick's.
TuneOutcome tune_incrementally(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                               const TuneOptions& options, const std::vector<ChoiceReport>& reusable);

}  // namespace gemmtune
