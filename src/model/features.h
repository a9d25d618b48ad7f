// Features of (problem, config) for the cost model. Generic over KernelConfig: every field
// enters raw (KernelConfig::fields()), so a field a backend adds reaches the model without an
// edit here; a few ratios the trees cannot form by themselves (tiles per dim, padding, work per
// thread) are derived from the fields by name and are 0 where a field is absent.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/problem.h"
#include "gemmtune/status.h"

namespace gemmtune {

// Names of the features, in order, for a model that ranks `backends` (one indicator each).
std::vector<std::string> feature_names(const std::vector<std::string>& backends);

// Appends one row of features (feature_names(backends).size() values) to `out`.
void append_features(const Problem& problem, std::string_view backend, const KernelConfig& config,
                     const std::vector<std::string>& backends, std::vector<float>& out);

// A CPU class's ISA level (cpu_isa_from_name) and thread count: "cpu/avx2/2t" is (1, 2);
// nullopt for anything else.
std::optional<std::pair<int, int>> cpu_class_parts(const std::string& device_class);

// Features of the device, for a model trained on the sweeps of several CPUs
// (ModelInfo::devices): its ISA level, its threads and its L2 a core (KiB, from the fingerprint's
// "l2=...K"), which tell the trees apart where one CPU class runs a config faster than another.
std::vector<std::string> device_feature_names();
Result<std::vector<float>> device_features(const std::string& fingerprint, const std::string& device_class);

// Features that models trained by an older gemmtune name and today's fields give only through a
// mapping. One so far: `cfg_algo`, the number that before 2026-11-28 was the cpu backend's kernel
// (0 packed, 1 rows, … 8 rows-dots), oneDNN's sgemm and libxsmm's per-call kernel (1), the mma
// family's fault kernels (9001, 9002) and cuBLASLt's rank, all of which are `kernel` or `rank`
// today. A model that names it is fed the value it was trained on, so it ranks as before.
bool is_legacy_feature(std::string_view name);
float legacy_feature(std::string_view name, std::string_view backend, const KernelConfig& config);

// "f32.f32.f32:nn" (":tf32" appended when allowed): the dtypes and layout a model must have
// seen to rank a problem.
std::string problem_kind(const Problem& problem);
std::string problem_kind(const ProblemKey& key);

}  // namespace gemmtune
