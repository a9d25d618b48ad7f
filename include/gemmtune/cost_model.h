// The learned cost model: from features of (problem, config) to the predicted log of the run
// time, so that a large search space can be ranked and only the top k benchmarked
// (Inductor's fast_autotune). Gradient-boosted trees trained with XGBoost on sweeps gemmtune
// ran itself; a model knows the device and backend versions it was measured on and refuses to
// rank for any other (docs/lut-and-model.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/status.h"
#include "gemmtune/sweep.h"
#include "gemmtune/tuning_options.h"

namespace gemmtune {

inline constexpr const char* kCostModelFormat = "gemmtune-cost-model";
// Every bump says why; models of another version are refused, never misread.
// 1: first layout (XGBoost UBJSON booster as base64, target ln(time_us)); 2: the booster
// zlib-compressed ("booster_ubj_zlib_base64"), a quarter of the size. Models are written in 2;
// both are read.
inline constexpr int kCostModelVersion = 2;
inline constexpr int kCostModelOldestVersion = 1;

// The defaults keep a model of ~100k rows near 2 MB (the shipped models live in the repository)
// with the held-out quality of models three times its size (docs/lut-and-model.md).
struct TrainOptions {
  int rounds = 300;        // boosting rounds (trees)
  int max_depth = 6;
  double eta = 0.1;        // learning rate
  double subsample = 0.8;  // rows per tree
  double colsample = 0.8;  // features per tree
  double min_child_weight = 1;
  int threads = 0;         // 0: every core
  std::uint64_t seed = 1;
  bool operator==(const TrainOptions&) const = default;
};

// The fit of a model's fast_top_k (ModelInfo): the quality it aims for and the share of the
// exhaustive tuning time it may spend at most, issue 34's targets for `--fast`; the largest k
// it tries; and the fewest training shapes it is fitted on (a half of a few says little).
// Where no k reaches the goal, qualities within the tolerance count as equal: on a half of 40
// shapes, 0.003 of a geomean is one shape's pick moving by 12 %.
inline constexpr double kFastFitQualityGoal = 0.97;
inline constexpr double kFastFitQualityTolerance = 0.003;
inline constexpr double kFastFitTimeCap = 0.10;
inline constexpr int kFastFitMaxK = 20;
inline constexpr std::size_t kFastFitMinShapes = 20;

// What a model file says about itself; readable without XGBoost.
struct ModelInfo {
  std::string device;        // DeviceInfo::fingerprint() of the machine the sweeps ran on
  std::string device_class;
  // A model trained across devices (CostModel::train's across_devices): the fingerprint of each
  // machine its sweeps ran on, and `device` and `device_class` join theirs with " + ". Its
  // features then end with the device's (device_feature_names), and it ranks for a device once
  // bound to it (CostModel::for_device). Empty for a model of one device.
  std::vector<std::string> devices;
  std::map<std::string, std::string> backend_versions;  // of the backends it ranks
  std::vector<std::string> backends;       // backends it ranks
  std::vector<std::string> features;       // names, in the order the trees index them
  std::vector<std::string> problem_kinds;  // "f32.f32.f32:nn": dtypes and layout it has data for
  std::vector<std::string> training_shapes;  // ProblemKey::to_string() of every shape trained on
  std::vector<std::string> training_data;    // the sweep files
  std::int64_t training_rows = 0;
  double training_rmse = 0;  // of ln(time_us), on the training rows
  TrainOptions params;
  std::int64_t created_unix = 0;
  // How many of its top choices `--fast` times with this model: fitted at training on halves
  // of the training shapes (src/model/fast_top_k.h), with the worse half's quality and time
  // fraction at that k. 0: not fitted (too few shapes, or an older model): kFastTopK.
  int fast_top_k = 0;
  double fast_fit_quality = 0;
  double fast_fit_time_fraction = 0;
  // The k `--fast` times with this model: the fitted one, else kFastTopK.
  int fast_k() const { return fast_top_k > 0 ? fast_top_k : kFastTopK; }
  bool operator==(const ModelInfo&) const = default;
};

// One choice to rank.
struct ModelChoice {
  std::string backend;
  KernelConfig config;
};

class CostModel {
 public:
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  // Whether this build has XGBoost (GEMMTUNE_WITH_XGBOOST). Without it models can be read
  // (read_info) but not trained or used.
  static bool built_in();
  // Why a build without XGBoost cannot train or use a model; what model commands print there.
  static std::string not_built_in_reason();

  // Trains on the ok rows of sweeps measured on one device with the same backend versions.
  // `names` (the files) are recorded in the model. With `fit_fast_top_k`, two more models, each
  // trained on half of the shapes, fit the model's fast_top_k (ModelInfo).
  // With `across_devices`, the sweeps may come from several CPUs (their peer libraries' versions
  // may differ, gemmtune's own backends' may not): each row gets its device's features too, so
  // that the model can rank for a CPU class it has no sweep of (ModelInfo::devices). Its k is not
  // fitted: the halves would mix devices.
  static Result<std::shared_ptr<const CostModel>> train(const std::vector<SweepData>& sweeps,
                                                        const std::vector<std::string>& names,
                                                        const TrainOptions& options, bool fit_fast_top_k = true,
                                                        bool across_devices = false);
  // Checks format, version, fields and checksum; corrupt_data naming what is wrong.
  static Result<std::shared_ptr<const CostModel>> load(const std::string& path);
  static Result<ModelInfo> read_info(const std::string& path);
  // Rewrites the model file at `path` in this build's version (kCostModelVersion), its trees and
  // everything it knows unchanged; needs no XGBoost. Returns the version it was of.
  static Result<int> upgrade_file(const std::string& path);
  Status save(const std::string& path) const;

  const ModelInfo& info() const;

  // Ok when the model was trained on this device fingerprint, with these versions of every one
  // of gemmtune's own backends it ranks that `versions` lists; else what differs ("trained on
  // cpu|…, this is cpu|…", "backend cpu version b2…, this build has 9f…"). A peer library at
  // another version does not refuse it: for_device sets that peer aside.
  Status check_trained_on(const std::string& device, const std::map<std::string, std::string>& versions) const;
  // Ok when the model has data for the problem's dtypes and layout.
  Status applies_to(const Problem& problem) const;
  // Whether it ranks this backend's choices (the others are always timed): one it was trained
  // on and has not set aside.
  bool ranks(std::string_view backend) const;
  // The peer libraries it was trained on at another version than the one it ranks for now
  // (for_device): timed in full beside the top k. The notes say so per backend, as "openblas
  // (trained on V, this build has W)".
  const std::vector<std::string>& set_aside() const { return set_aside_; }
  const std::vector<std::string>& set_aside_notes() const { return set_aside_notes_; }

  // Predicted ln(time in microseconds) of each choice on the problem. A model trained across
  // devices predicts only once bound to one (for_device).
  Result<std::vector<double>> predict(const Problem& problem, const std::vector<ModelChoice>& choices) const;

  // The same model, ranking for this device (its fingerprint and class) and these backend
  // versions: a model trained across devices takes the device's features from them
  // (invalid_argument where they are not a CPU's). A peer library whose version differs from
  // the one it was trained on is set aside (set_aside): its choices are timed, not ranked.
  // Debian's OpenBLAS names the core it picked in its version, so two CPUs of one fingerprint
  // can differ there alone: the Emerald Rapids VM's model was refused whole on the Granite
  // Rapids VM for it (bench/results/2026-11-30g-cpu-intel-gnr-2t.md).
  Result<std::shared_ptr<const CostModel>> for_device(const std::string& device, const std::string& device_class,
                                                      const std::map<std::string, std::string>& versions = {}) const;

  struct Impl;

 private:
  CostModel(std::shared_ptr<const Impl> impl, std::vector<float> device_row);
  std::shared_ptr<const Impl> impl_;
  std::vector<float> device_row_;  // the bound device's features (for_device)
  std::vector<std::string> set_aside_;        // backends not ranked for their version (for_device)
  std::vector<std::string> set_aside_notes_;  // why, one per backend
};

// The model shipped for a device: the first *.json file in data/models of the tree the
// executable was built in, then of the source tree this library was built from (or, when
// $GEMMTUNE_MODEL_DIR is set, in that folder alone), that was trained on this device
// fingerprint and passes check_trained_on. Where none was and `device_class` is given, the
// first model of another device of that class whose own backends' versions match stands in
// (its info().device says so): on the Intel Emerald Rapids VM the Zen 5 VM's model ranked
// held-out shapes to 0.966 of the exhaustive best at k = 5, its own model to 0.970
// (bench/results/2026-11-27-cpu-intel-xeon-processor-model-eval.md). Where the class has none
// either, the model of the nearest other CPU class stands in (the nearest thread count, then the
// nearest ISA level), and the session times twice its k: on three classes' held-out sweeps that
// ranked to 0.962-0.983 of the exhaustive best at 7.5-12.4 % of its tuning time, where without
// a model `--fast` times the default space in full (bench/results/2026-11-29e-cpu-intel-emr-2t.md).
// Before that, a model trained across devices whose classes span the device's (ISA level and
// threads each within their range) stands in, bound to the device: on three classes none of its
// sweeps was, 0.977-0.989 at k = 10, where the nearest class's read 0.966-0.989
// (bench/results/2026-11-29h-cpu-model-across-classes.md). Otherwise not_found, listing what
// was looked at and why each was not taken. A model of this device or its class whose versions
// differ in a peer library alone sets that peer aside (for_device) and comes after a model
// across classes that spans the device: the peer's version may name another machine (Debian's
// OpenBLAS names the core it picked), and on the Granite Rapids VM, which shares the Emerald
// Rapids VM's fingerprint but not its OpenBLAS core, the model across classes ranked 0.987 of the
// exhaustive best at its k of 10, that VM's model 0.971 at 5 and 0.979 at 10
// (bench/results/2026-11-30h-cpu-intel-gnr-2t-model.md).
// With `problem_kind` ("bf16.bf16.bf16:nn"), only models with data for that kind are taken.
Result<std::shared_ptr<const CostModel>> find_cost_model(const std::string& device,
                                                         const std::map<std::string, std::string>& versions,
                                                         const std::string& device_class = "",
                                                         const std::string& problem_kind = "");
// For each kind of problem that a model of this device's kind (CPU or GPU) in the model
// folders has data for and `primary` has not, the model find_cost_model finds for that kind,
// each loaded once: where a CPU's own model knows f32 alone, another device's of its class that
// was swept in bf16 and s8 ranks those. Empty where none is found.
std::map<std::string, std::shared_ptr<const CostModel>> find_cost_models_for_other_kinds(
    const ModelInfo& primary, const std::string& device, const std::map<std::string, std::string>& versions,
    const std::string& device_class);
// How a model that find_cost_model returned relates to the device it ranks for, in the order
// it looks: trained on this device, on another device of its class, across classes that span
// the device's, or on the nearest other class. The two last are stand-ins: `--fast` times twice
// their k.
enum class ModelFit { this_device, device_of_class, across_classes, nearest_class };
ModelFit model_fit(const ModelInfo& info, const std::string& device, const std::string& device_class);
// "trained on this device", "trained on another device of its class", "trained across classes
// that span it", "trained on the nearest class".
std::string_view model_fit_name(ModelFit fit);
// The fit's name and the device the model was trained on, as reports name a model:
// "trained on another device of its class ('cpu|…')".
std::string model_named(const ModelInfo& info, ModelFit fit);
// Whether the model only stands in for the device's class (across classes, the nearest class).
inline bool stands_in(ModelFit fit) { return fit == ModelFit::across_classes || fit == ModelFit::nearest_class; }
// The k `--fast` times with a model that fits the device so: its own k, twice it for a stand-in.
inline int fast_k_for(const ModelInfo& info, ModelFit fit) { return stands_in(fit) ? 2 * info.fast_k() : info.fast_k(); }

// Loads `path` and checks it against the device and versions.
Result<std::shared_ptr<const CostModel>> load_cost_model_for(const std::string& path, const DeviceInfo& device,
                                                             const std::map<std::string, std::string>& versions);

// --- evaluation on held-out sweeps ---

// One shape of an evaluation at k.
struct EvalShape {
  std::string problem;          // ProblemKey::to_string()
  int configs = 0;              // choices of the exhaustive space (rows of the sweep)
  double best_us = 0;           // fastest measured time of all
  double top_k_best_us = 0;     // fastest measured time among the choices timed at k (model_shortlist)
  double quality = 0;           // best_us / top_k_best_us (1: the top k hold the best)
  double all_cost_us = 0;       // simulated tuning time of the whole space
  double top_k_cost_us = 0;     // simulated tuning time of the top k, ranking included
  double rank_us = 0;           // measured: features and prediction for every choice
};

struct EvalPoint {
  int k = 0;
  double quality_geomean = 0;  // geometric mean over shapes of best_us / top_k_best_us
  double quality_min = 0;
  double time_fraction = 0;    // Σ top_k_cost_us / Σ all_cost_us over shapes
  int shapes_with_best = 0;    // shapes whose top k hold the fastest config
};

struct ModelEval {
  int k = 0;
  EvalPoint at_k;
  std::vector<EvalPoint> curve;  // k = 1 … max(k, curve_max)
  std::vector<EvalShape> shapes;  // at k
  int shapes_in_training = 0;     // shapes of the data the model was trained on, left out
  // The shortlist's band: each other kernel family's best-ranked choice predicted within this
  // factor of the fastest prediction is timed beside the top k, as in a tuning.
  double family_band = 0;
};

// Ranks each held-out shape's choices with the model and compares the top k with the whole
// space as measured by the sweep (docs/lut-and-model.md, "Evaluation"). The sweep must have
// been measured where the model was trained, unless `across_devices`: then the model is scored
// on another device's sweep, which measures how it transfers (a tuning there still refuses
// it). Shapes the model was trained on are left out, and an error is returned when none remains.
// A peer the sweep measured at another version than the model was trained on is timed beside
// the top k, not ranked, as a tuning does (CostModel::for_device).
Result<ModelEval> evaluate_cost_model(const CostModel& model, const SweepData& held_out, int k, int curve_max = 20,
                                      bool across_devices = false);

// Simulated tuning time of a set of measured choices, following the autotuner step by step:
// the shape's setup; preparing on `meta.workers` threads (list scheduling in order); one
// verified run each; then, with more than one choice, a short sample each and the full timing
// of those within meta.prune_factor of the fastest short sample; with one, its full timing.
// A choice the sweep never timed in full (it was beyond full_within of the fastest) is charged
// its short sample's cost × (warm-ups + 1 + samples) / 3: the calls a full timing of a kernel
// slower than one sample takes, against the three of the short sample.
double simulated_tuning_us(const SweepMeta& meta, double setup_us, const std::vector<const ConfigMeasurement*>& set);

}  // namespace gemmtune
