// How a tuning searches and measures: the search and benchmark spaces and the options of a
// tuning (TuneOptions) and of a sweep (SweepOptions). The backends' config spaces and the
// tuning pipeline need these and nothing else of the Session, so they live apart from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/status.h"
#include "gemmtune/timing.h"

namespace gemmtune {

class LookupTable;  // gemmtune/lut.h
class CostModel;    // gemmtune/cost_model.h

// Which configs of each backend are candidates (Inductor's max_autotune_gemm_search_space).
enum class SearchSpace { default_space, exhaustive };
Result<SearchSpace> parse_search_space(std::string_view name);

// Which of the searched choices are timed (Inductor's max_autotune_gemm_benchmark_space):
// all of them, or the K that the cost model ranks fastest.
struct BenchmarkSpace {
  int top_k = 0;  // 0: all
  // `--fast`: the model's own fitted k (ModelInfo::fast_top_k) where it has one, top_k where not.
  bool model_k = false;
  bool all() const { return top_k <= 0; }
  std::string to_string() const;  // "all" or "top:K"
};
// "all" or "top:K" (K >= 1).
Result<BenchmarkSpace> parse_benchmark_space(std::string_view text);

// A cost model that ranks one kind of problem in place of TuneOptions::model.
struct KindModel {
  std::shared_ptr<const CostModel> model;
  // The k `--fast` times with it: its own, twice it for a stand-in (fast_k_for). 0: the k the
  // session's benchmark names (its top_k, or with model_k the model's own k), as for `model`.
  int fast_k = 0;
  std::string whose;  // which model, for the report: "trained on another device of its class ('cpu|…')"
};

// `--fast`: the exhaustive space searched, the cost model's top k timed: the k fitted to the
// model when it was trained (5 on the Zen 3 and Emerald Rapids VMs, 15 on the 16-core Intel
// host; twice it for a model of another class, find_cost_model), else kFastTopK,
// where the 2-core VMs' models reached 0.97 of the exhaustive best at under a tenth of its
// tuning time (bench/results/, docs/lut-and-model.md).
inline constexpr int kFastTopK = 5;

struct TuneOptions {
  TimingOptions timing;
  SearchSpace search = SearchSpace::default_space;
  // Backends to choose among, by name; empty means all that the device has.
  std::vector<std::string> backends;
  // Candidates whose medians are within this fraction of the fastest (or within twice the
  // fastest's MAD, whichever is larger) are a tie; ties go to the earliest in the fixed choice
  // order (backend registration order, then config order), so reruns pick the same kernel.
  // In the final round (below) the band applies to the round-by-round ratios alone.
  double noise_band = 0.01;
  // The final round: after the full timing, the `finalists` fastest choices, and each
  // backend's fastest and first config if they were timed in full, are timed once more,
  // together; the pick is made on that round (and its close finish, below) alone, by each
  // finalist's time over the fastest's in the same round (the median of those ratios),
  // within noise_band a tie. One disturbed sample set in the full timing no longer decides,
  // and two kernels a few percent apart are told apart by a comparison that the machine's
  // drift cancels out of. 0 or 1: no final round; the pick is made on the full timing.
  int finalists = 3;
  // The final round's close finish: where the round's rounds leave the pick open, finalists
  // within this fraction of the fastest of the round (by the round-by-round ratio; never less
  // than noise_band) are timed again, among themselves, for close_repeats × timing.samples
  // more rounds, and the pick among them is made on all their rounds. Where two kernels are a few percent apart, one round's few
  // samples on a shared machine put the slower within the band of the faster now and then
  // (docs/measuring.md); only such close finishes pay for the extra rounds. 0 for either: no
  // close finish.
  double close_band = 0.03;
  int close_repeats = 2;
  // Every choice first gets one short sample; those slower than prune_factor × the fastest
  // are not timed further (reported as such). 0 times every choice fully.
  double prune_factor = 1.5;
  // Seed of the verification inputs; 0 draws fresh ones for every tuning.
  std::uint64_t seed = 0;
  // Print the AUTOTUNE table to stderr after each tuning.
  bool print_table = false;
  // Which searched choices are timed. top:K needs `model`; without one that applies to the
  // problem, the default space is timed in full instead (the report's `selection` says so).
  BenchmarkSpace benchmark;
  // Configs it names for this device and problem are always among the choices, or the only
  // ones, or used without tuning (docs/lut-and-model.md). Null: no table.
  std::shared_ptr<const LookupTable> lut;
  // Ranks the choices for benchmark top:K.
  std::shared_ptr<const CostModel> model;
  // Models for the kinds of problem `model` has no data for (ModelInfo::problem_kinds), by kind
  // ("bf16.bf16.bf16:nn"): a session finds one per kind as it finds `model`, so that a CPU whose
  // own model knows f32 alone ranks its bf16 and s8 products with the model of another device
  // of its class that was swept in them (find_cost_models_for_other_kinds).
  std::map<std::string, KindModel> models_by_kind;
};

// What `--fast` (fast=True, GEMMTUNE_BLAS_TUNING=fast) sets: the exhaustive space, the model's
// top k timed.
inline void set_fast(TuneOptions& options) {
  options.search = SearchSpace::exhaustive;
  options.benchmark = BenchmarkSpace{kFastTopK, /*model_k=*/true};
}

// What Session::measure_configs (`gemmtune sweep`) measures, and how.
struct SweepOptions {
  SearchSpace search = SearchSpace::exhaustive;
  // Backends to measure, by name; empty means all that the device has.
  std::vector<std::string> backends;
  // The full timing given to every config within full_within × the fastest first sample.
  TimingOptions timing;
  // Every config first gets one short sample, as in tuning (TuneOptions::prune_factor); those
  // within this factor of the fastest are then timed in full, the others keep their short
  // sample. It exceeds the autotuner's prune_factor, so every choice a tuning would time in
  // full has a full time here.
  double full_within = 3.0;
  // At most this many configs of each backend per shape (0: all), drawn at random, the same
  // ones for the same shape and seed, measured in the space's order. A training sweep of a
  // large space samples it; a held-out sweep, which judges a ranking, measures every config.
  std::size_t configs_per_backend = 0;
  std::uint64_t seed = 0x5eed5eedull;
};

}  // namespace gemmtune
