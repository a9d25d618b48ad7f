// Which of a cost model's ranked choices a tuning with --benchmark top:K times. The autotuner
// (choice_selection.cc) and the model's evaluation (model/evaluate.cc) both ask here, so the
// evaluation measures the rule the tuner follows.
#pragma once

#include <algorithm>
#include <cmath>
#include <compare>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gemmtune/config.h"

namespace gemmtune {

// A kernel family whose best-ranked choice is predicted within this factor of the best
// prediction is timed even when the top k leaves it out. The model orders configs of one
// family well but can misjudge a whole family on a shape unlike its training shapes: at
// 13 × 2071 × 3940 (W stored n × k) the model retrained on 2026-11-25 ranked five configs of
// other kernels first, the best of them 1.66× slower than the columns kernel's best.
inline constexpr double kShortlistFamilyBand = 1.5;

// A choice's kernel family: its backend and the kernel its config names (the cpu backend's
// kernels, oneDNN's matmul primitive or sgemm, the skinny family's tensor-core kernel or gemv).
// cuBLASLt's rank names no kernel: its choices are one family.
struct KernelFamily {
  std::string backend;
  int kernel = 0;
  auto operator<=>(const KernelFamily&) const = default;
};
inline KernelFamily kernel_family(std::string_view backend, const KernelConfig& config) {
  return {std::string(backend), int(config.kernel)};
}

// Positions (into the ranking, best first) of the choices to time: the first k, then the
// first choice of each family (family(i): the family of the ranking's i-th choice) that the
// first k lack, where its predicted time is within `band` of the first's (predicted(i): the
// model's prediction for the i-th, a log of the time, as CostModel::predict gives). In
// ranking order.
template <class Family, class Predicted>
std::vector<std::size_t> model_shortlist(std::size_t ranked, std::size_t k, Family family, Predicted predicted,
                                         double band = kShortlistFamilyBand) {
  std::vector<std::size_t> chosen;
  const double log_band = std::log(band);
  using Key = std::decay_t<std::invoke_result_t<Family&, std::size_t>>;
  std::vector<Key> seen;
  for (std::size_t i = 0; i < ranked; ++i) {
    Key key = family(i);
    const bool new_family = std::find(seen.begin(), seen.end(), key) == seen.end();
    if (new_family) seen.push_back(key);
    if (i < k || (new_family && predicted(i) <= log_band + predicted(0))) chosen.push_back(i);
  }
  return chosen;
}

}  // namespace gemmtune
