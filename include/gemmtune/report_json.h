// The JSON the CLI prints (`gemmtune tune --json`, `gemmtune devices --json`) for any program:
// a tuning report, one choice of it, a problem or a device, each as one JSON object in text. The
// CLI and the Python module both print through these, so their documents cannot drift apart.
#pragma once

#include <string>

#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/tune_report.h"

namespace gemmtune {

// {"choices": [...], "best", "selection", "tuning_s", "phases", "store_hit", "compilations"}.
std::string json_text(const TuneReport& report);
// {"backend", "config", "status", "time_us", and where they apply "error", "prepare_s",
// "compile_s", "check_s", "calls_per_sample", "calibration_us", "final_ratio", "reason"}.
std::string json_text(const ChoiceReport& choice);
// {"m", "n", "k", dtypes, "layout", leading dimensions, "alpha", "beta", "key"}.
std::string json_text(const Problem& problem);
// {"name", "fingerprint", "device_class", "cpu": {model, features, ISA, cores, caches}}.
std::string json_text(const DeviceInfo& device);

}  // namespace gemmtune
