// Features of (problem, config) for the cost model. Generic over KernelConfig: every field
// enters raw (KernelConfig::fields()), so a field a backend adds reaches the model without an
// edit here; a few ratios the trees cannot form by themselves (tiles per dim, padding, work per
// thread) are derived from the fields by name and are 0 where a field is absent.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/problem.h"

namespace gemmtune {

// Names of the features, in order, for a model that ranks `backends` (one indicator each).
std::vector<std::string> feature_names(const std::vector<std::string>& backends);

// Appends one row of features (feature_names(backends).size() values) to `out`.
void append_features(const Problem& problem, std::string_view backend, const KernelConfig& config,
                     const std::vector<std::string>& backends, std::vector<float>& out);

// "f32.f32.f32:nn" (":tf32" appended when allowed): the dtypes and layout a model must have
// seen to rank a problem.
std::string problem_kind(const Problem& problem);
std::string problem_kind(const ProblemKey& key);

}  // namespace gemmtune
