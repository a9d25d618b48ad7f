// Measuring every config of a search space on one problem, each config on its own, with what
// each step cost: the data of `gemmtune sweep` (gemmtune/sweep.h).
#pragma once

#include "../core/backend.h"
#include "gemmtune/tuning_options.h"
#include "gemmtune/sweep.h"

namespace gemmtune {

// Every wanted backend's configs of options.search (or the sample options.configs_per_backend
// asks for), in the autotuner's fixed order. Each is checked (can_implement) and prepared like
// a tuning choice, over the cores a batch at a time, then verified and timed alone: a
// short sample (the autotuner's first pass), and the full timing when that is within
// options.full_within of the fastest short sample so far (so of the final fastest too). The
// lookup table and cost model play no part: a sweep is the ground truth they are judged against.
Result<ShapeMeasurement> measure_every_config(const Problem& problem, const DeviceInfo& device,
                                              const BackendList& backends, const SweepOptions& options);

}  // namespace gemmtune
