// How good a cost model's shortlist (its top k, and close families' best) is on shapes it was not
// trained on, and what it saves.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "../tuning/final_round.h"
#include "../tuning/model_shortlist.h"
#include "gemmtune/cost_model.h"

namespace gemmtune {
namespace {

// One held-out shape: its measured rows and the model's ranking of them.
struct RankedShape {
  std::string problem;
  double setup_us = 0;
  std::vector<const ConfigMeasurement*> rows;      // every config of the space
  std::vector<const ConfigMeasurement*> always;    // implementable, of backends the model does not rank
  std::vector<const ConfigMeasurement*> ranked;    // implementable, ranked by the model, best first
  std::vector<double> predicted;                   // the model's prediction of each of `ranked`
  double skipped_check_us = 0;                     // can_implement of the configs that cannot run
  double best_us = 0;
  double rank_us = 0;
};

bool any_ok(const std::vector<const ConfigMeasurement*>& set) {
  for (const ConfigMeasurement* m : set) {
    if (m->status == ChoiceStatus::ok) return true;
  }
  return false;
}

double fastest(const std::vector<const ConfigMeasurement*>& set) {
  double best = -1;
  for (const ConfigMeasurement* m : set) {
    if (m->status == ChoiceStatus::ok && m->time_us > 0) best = best < 0 ? m->time_us : std::min(best, m->time_us);
  }
  return best;
}

// The choices a tuning at k times: the model's shortlist (model_shortlist: the top k and the
// close families' best) and every choice the model does not rank; should none of them
// succeed, the ranking's next k, as the autotuner does. (A tuning offers only the default space
// of a backend the model does not rank; a sweep of the exhaustive space cannot tell which of
// its rows those are, so this charges all of them: an upper bound on time, and on quality.)
std::vector<const ConfigMeasurement*> top_k_set(const RankedShape& shape, int k) {
  std::vector<const ConfigMeasurement*> set = shape.always;
  const std::vector<std::size_t> chosen = model_shortlist(
      shape.ranked.size(), std::size_t(k),
      [&](std::size_t i) { return kernel_family(shape.ranked[i]->backend, shape.ranked[i]->config); },
      [&](std::size_t i) { return shape.predicted[i]; });
  std::vector<bool> taken(shape.ranked.size(), false);
  for (std::size_t i : chosen) {
    set.push_back(shape.ranked[i]);
    taken[i] = true;
  }
  for (std::size_t next = 0; !any_ok(set) && next < shape.ranked.size();) {
    for (int added = 0; added < k && next < shape.ranked.size(); ++next) {
      if (taken[next]) continue;
      set.push_back(shape.ranked[next]);
      ++added;
    }
  }
  return set;
}

double geometric_mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += std::log(v);
  return values.empty() ? 0 : std::exp(sum / double(values.size()));
}

}  // namespace

double simulated_tuning_us(const SweepMeta& meta, double setup_us, const std::vector<const ConfigMeasurement*>& set) {
  // Preparing: the autotuner's pool of `workers` threads takes the choices in order, each
  // thread the next one as it frees (list scheduling); the phase lasts until the last is done.
  const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(meta.workers), set.size()));
  std::vector<double> busy_until(workers, 0.0);
  double verify_us = 0;
  for (const ConfigMeasurement* m : set) {
    auto free_first = std::min_element(busy_until.begin(), busy_until.end());
    *free_first += m->prepare_us;
    verify_us += m->verify_us;
  }
  const double prepare_us = set.empty() ? 0 : *std::max_element(busy_until.begin(), busy_until.end());

  std::vector<const ConfigMeasurement*> ok;
  for (const ConfigMeasurement* m : set) {
    if (m->status == ChoiceStatus::ok) ok.push_back(m);
  }
  // A config the sweep did not time in full (it was far from the fastest) is charged what a
  // full timing of a kernel slower than one sample costs: (warm-ups + calibration + samples)
  // calls where its short sample took three (one warm-up, one calibration, one sample).
  auto full_cost = [&](const ConfigMeasurement* m) {
    if (m->full) return m->full_cost_us;
    return m->quick_cost_us * double(std::max(0, meta.timing.warmup_runs) + 1 + meta.timing.samples) / 3.0;
  };
  double timing_us = 0;
  std::vector<const ConfigMeasurement*> full;
  if (meta.prune_factor > 0 && ok.size() > 1) {
    double quickest = -1;
    for (const ConfigMeasurement* m : ok) {
      timing_us += m->quick_cost_us;
      quickest = quickest < 0 ? m->quick_us : std::min(quickest, m->quick_us);
    }
    for (const ConfigMeasurement* m : ok) {
      if (m->quick_us <= meta.prune_factor * quickest) full.push_back(m);
    }
  } else {
    full = ok;
  }
  for (const ConfigMeasurement* m : full) timing_us += full_cost(m);
  // The final round times its members (final_round_members: the fastest few, each backend's
  // fastest and its lead) in full once more; each backend's lead is its first config in
  // `set`'s order.
  if (meta.finalists >= 2 && full.size() >= 2) {
    auto backend = [](const ConfigMeasurement* m) { return m->backend; };
    const std::vector<const ConfigMeasurement*> leads = first_of_each(set, backend);
    const std::vector<const ConfigMeasurement*> members = final_round_members(
        full, leads, meta.finalists, [](const ConfigMeasurement* m) { return m->time_us; }, backend);
    for (const ConfigMeasurement* m : members) timing_us += full_cost(m);
    // The close finish (TuneOptions::close_band): the members within the band of the fastest,
    // by the sweep's times, timed close_repeats times as long again. Whether the rounds would
    // have left the pick open the sweep cannot say, so this charges every such finish: an
    // upper bound.
    auto by_time = [](const ConfigMeasurement* x, const ConfigMeasurement* y) { return x->time_us < y->time_us; };
    const double fastest = (*std::min_element(members.begin(), members.end(), by_time))->time_us;
    int close = 0;
    double close_cost_us = 0;
    for (const ConfigMeasurement* m : members) {
      if (m->time_us > (1 + meta.close_band) * fastest) continue;
      ++close;
      close_cost_us += full_cost(m);
    }
    if (meta.close_band > 0 && close >= 2) timing_us += meta.close_repeats * close_cost_us;
  }
  return setup_us + prepare_us + verify_us + timing_us;
}

Result<ModelEval> evaluate_cost_model(const CostModel& unbound, const SweepData& held_out, int k, int curve_max,
                                      bool across_devices) {
  if (k < 1) return invalid_argument("k must be >= 1");
  // A model trained across devices ranks with the held-out sweep's device's features; a peer
  // swept at another version than the model was trained on is timed in full, as a tuning would.
  GEMMTUNE_ASSIGN_OR_RETURN(std::shared_ptr<const CostModel> bound,
                            unbound.for_device(held_out.meta.device, held_out.meta.device_class,
                                               held_out.meta.backend_versions));
  const CostModel& model = *bound;
  if (!across_devices) {
    GEMMTUNE_RETURN_IF_ERROR(model.check_trained_on(held_out.meta.device, held_out.meta.backend_versions));
  }
  const std::set<std::string> trained(model.info().training_shapes.begin(), model.info().training_shapes.end());

  std::map<std::string, std::vector<const SweepRow*>> by_shape;
  for (const SweepRow& row : held_out.rows) by_shape[row.problem.to_string()].push_back(&row);

  ModelEval out;
  out.k = k;
  out.family_band = kShortlistFamilyBand;
  std::vector<RankedShape> shapes;
  int not_applicable = 0;
  std::string not_applicable_why;
  for (const std::string& key : held_out.shapes) {
    if (trained.count(key)) {
      ++out.shapes_in_training;
      continue;
    }
    const std::vector<const SweepRow*>& rows = by_shape[key];
    if (rows.empty()) continue;
    auto problem = rows.front()->problem.problem();
    if (!problem.is_ok()) return problem.status();
    if (Status applies = model.applies_to(*problem); !applies.is_ok()) {
      ++not_applicable;
      not_applicable_why = applies.message();
      continue;
    }
    RankedShape shape;
    shape.problem = key;
    shape.setup_us = rows.front()->setup_us;
    std::vector<const ConfigMeasurement*> to_rank;
    std::vector<ModelChoice> choices;
    for (const SweepRow* row : rows) {
      const ConfigMeasurement* m = &row->measured;
      shape.rows.push_back(m);
      // A tuning checks can_implement before ranking: what cannot run takes no place.
      if (m->status == ChoiceStatus::skipped) {
        shape.skipped_check_us += m->prepare_us;
      } else if (!model.ranks(m->backend)) {
        shape.always.push_back(m);
      } else {
        to_rank.push_back(m);
        choices.push_back({m->backend, m->config});
      }
    }
    shape.best_us = fastest(shape.rows);
    if (shape.best_us <= 0) continue;  // nothing ran correctly: no quality to measure
    const auto start = std::chrono::steady_clock::now();
    GEMMTUNE_ASSIGN_OR_RETURN(std::vector<double> predicted, model.predict(*problem, choices));
    std::vector<std::size_t> order(to_rank.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return predicted[a] < predicted[b]; });
    shape.rank_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t i : order) {
      shape.ranked.push_back(to_rank[i]);
      shape.predicted.push_back(predicted[i]);
    }
    shapes.push_back(std::move(shape));
  }
  if (shapes.empty()) {
    std::string why = "no held-out shape to evaluate: " + std::to_string(out.shapes_in_training) +
                      " of the data's shapes were trained on";
    if (not_applicable > 0) why += ", " + std::to_string(not_applicable) + " are of kinds the model does not know (" + not_applicable_why + ")";
    return invalid_argument(why);
  }

  const int k_max = std::max(k, curve_max);
  for (int kk = 1; kk <= k_max; ++kk) {
    EvalPoint point;
    point.k = kk;
    std::vector<double> qualities;
    double all_cost = 0, top_cost = 0;
    for (const RankedShape& shape : shapes) {
      const std::vector<const ConfigMeasurement*> set = top_k_set(shape, kk);
      const double top_best = fastest(set);
      const double quality = top_best > 0 ? shape.best_us / top_best : 0;
      qualities.push_back(std::max(quality, 1e-9));
      if (top_best > 0 && top_best <= shape.best_us) ++point.shapes_with_best;
      const double shape_all = simulated_tuning_us(held_out.meta, shape.setup_us, shape.rows);
      const double shape_top = simulated_tuning_us(held_out.meta, shape.setup_us, set) + shape.rank_us + shape.skipped_check_us;
      all_cost += shape_all;
      top_cost += shape_top;
      if (kk == k) {
        out.shapes.push_back({shape.problem, int(shape.rows.size()), shape.best_us, top_best, quality, shape_all,
                              shape_top, shape.rank_us});
      }
    }
    point.quality_geomean = geometric_mean(qualities);
    point.quality_min = *std::min_element(qualities.begin(), qualities.end());
    point.time_fraction = all_cost > 0 ? top_cost / all_cost : 0;
    out.curve.push_back(point);
    if (kk == k) out.at_k = point;
  }
  return out;
}

}  // namespace gemmtune
