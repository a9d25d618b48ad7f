// How many of a cost model's top choices `--fast` times on its device (ModelInfo::fast_top_k).
// One k does not serve every device: on the 2-core Zen 3 VM the top 5 reach 0.98 of the
// exhaustive best at 9 % of its tuning time, while on the 16-core Intel host the top 5 reach
// 0.955 and 0.97 takes the top 11 (bench/results/2026-11-29c-cpu-intel-xeon-16t.md). So k is
// fitted where the model is trained, on shapes none of the fitting models saw: 5 and 15 there.
#pragma once

#include <vector>

#include "gemmtune/cost_model.h"

namespace gemmtune {

struct FastTopKFit {
  int k = 0;                   // 0: not fitted (kFastTopK applies)
  double quality = 0;          // the worse half's quality at k
  double time_fraction = 0;    // the worse half's tuning time fraction at k
};

// The training shapes are split in two halves (by a hash of each shape's key, so the split is
// the same on every run). A model trained on each half ranks the other half's shapes
// (evaluate_cost_model), and k is the smallest whose quality reaches kFastFitQualityGoal on
// both halves within kFastFitTimeCap of the exhaustive tuning time; where no k reaches it, the
// smallest k within kFastFitQualityTolerance of the best quality within the cap. A model
// trained on half the data ranks worse than the whole model, so the k fitted errs on the large
// side. Not fitted (k = 0) where the shapes are fewer than kFastFitMinShapes or no k keeps
// within the cap.
Result<FastTopKFit> fit_fast_top_k(const std::vector<SweepData>& sweeps, const TrainOptions& options);
// The rule alone, on the two halves' curves (points of equal index are of one k).
FastTopKFit choose_fast_top_k(const std::vector<EvalPoint>& half_a, const std::vector<EvalPoint>& half_b);

}  // namespace gemmtune
