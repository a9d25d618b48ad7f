#include "fast_top_k.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

namespace gemmtune {
namespace {

// FNV-1a: a hash that is the same in every build, so a model's fit can be repeated.
std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : text) {
    h ^= std::uint8_t(c);
    h *= 1099511628211ull;
  }
  return h;
}

// The rows of `sweeps` split in two halves by their shape, each as one sweep with the first's
// meta data (CostModel::train has checked that they were measured on one device).
std::array<SweepData, 2> halves_of(const std::vector<SweepData>& sweeps) {
  std::array<SweepData, 2> halves;
  std::set<std::string> seen;
  for (SweepData& half : halves) half.meta = sweeps.front().meta;
  for (const SweepData& sweep : sweeps) {
    for (const SweepRow& row : sweep.rows) {
      std::string key = row.problem.to_string();
      SweepData& half = halves[stable_hash(key) & 1];
      half.rows.push_back(row);
      if (seen.insert(key).second) half.shapes.push_back(std::move(key));
    }
  }
  return halves;
}

}  // namespace

Result<FastTopKFit> fit_fast_top_k(const std::vector<SweepData>& sweeps, const TrainOptions& options) {
  if (sweeps.empty()) return FastTopKFit{};
  const std::array<SweepData, 2> halves = halves_of(sweeps);
  if (halves[0].shapes.size() + halves[1].shapes.size() < kFastFitMinShapes || halves[0].shapes.empty() ||
      halves[1].shapes.empty()) {
    return FastTopKFit{};
  }
  std::array<std::vector<EvalPoint>, 2> curves;
  for (std::size_t h = 0; h < 2; ++h) {
    GEMMTUNE_ASSIGN_OR_RETURN(auto model, CostModel::train({halves[h]}, {"half"}, options, /*fit_fast_top_k=*/false));
    GEMMTUNE_ASSIGN_OR_RETURN(ModelEval eval, evaluate_cost_model(*model, halves[1 - h], 1, kFastFitMaxK));
    curves[h] = std::move(eval.curve);
  }
  return choose_fast_top_k(curves[0], curves[1]);
}

FastTopKFit choose_fast_top_k(const std::vector<EvalPoint>& half_a, const std::vector<EvalPoint>& half_b) {
  std::vector<FastTopKFit> within_cap;  // the worse half's figures of each k within the time cap
  const std::size_t points = std::min(half_a.size(), half_b.size());
  for (std::size_t i = 0; i < points; ++i) {
    const double quality = std::min(half_a[i].quality_geomean, half_b[i].quality_geomean);
    const double time = std::max(half_a[i].time_fraction, half_b[i].time_fraction);
    if (time > kFastFitTimeCap) continue;
    if (quality >= kFastFitQualityGoal) return {half_a[i].k, quality, time};
    within_cap.push_back({half_a[i].k, quality, time});
  }
  // No k reaches the goal: the smallest whose quality is within the tolerance of the best. The
  // strict best let a k at the cap's edge, its time timed live, win one fit and not the next
  // by a quality of 0.0001 (the 16-core Xeon's sweeps: k = 16 and 17).
  double best = 0;
  for (const FastTopKFit& fit : within_cap) best = std::max(best, fit.quality);
  for (const FastTopKFit& fit : within_cap) {
    if (fit.quality >= best - kFastFitQualityTolerance) return fit;
  }
  return {};  // no k within the cap
}

}  // namespace gemmtune
