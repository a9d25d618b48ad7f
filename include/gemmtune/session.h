// The entry point: a Session is bound to one device, tunes each problem on first sight and
// dispatches straight to the picked kernel afterwards.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/route.h"
#include "gemmtune/status.h"
#include "gemmtune/store_options.h"
#include "gemmtune/sweep.h"
#include "gemmtune/timing.h"
#include "gemmtune/tune_report.h"

namespace gemmtune {

class SessionStore;
class Session;
class LookupTable;  // gemmtune/lut.h
class CostModel;    // gemmtune/cost_model.h
// The session's tuning store, or null when it has none; for gemmtune's own multi-kernel ops.
SessionStore* session_store(Session& session);

// Which configs of each backend are candidates (Inductor's max_autotune_gemm_search_space).
enum class SearchSpace { default_space, exhaustive };
Result<SearchSpace> parse_search_space(std::string_view name);

// Which of the searched choices are timed (Inductor's max_autotune_gemm_benchmark_space):
// all of them, or the K that the cost model ranks fastest.
struct BenchmarkSpace {
  int top_k = 0;  // 0: all
  bool all() const { return top_k <= 0; }
  std::string to_string() const;  // "all" or "top:K"
};
// "all" or "top:K" (K >= 1).
Result<BenchmarkSpace> parse_benchmark_space(std::string_view text);

// `--fast`: the exhaustive space searched, the cost model's top kFastTopK timed. Five is where
// the shipped models reach 0.97 of the exhaustive best at a few percent of its tuning time
// (bench/results/, docs/lut-and-model.md).
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
};

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
  std::uint64_t seed = 0x5eed5eedull;
};

// $GEMMTUNE_LUT and $GEMMTUNE_MODEL; "" when unset.
std::string lut_path_from_env();
std::string model_path_from_env();

struct SessionOptions {
  std::string device = "cpu";
  TuneOptions tuning;
  // New shapes in gemm(): tuned in full (default) or routed among per-hint sub-kernels.
  ShapeRouting routing;
  // Defaults from GEMMTUNE_CACHE, GEMMTUNE_CACHE_MODE and GEMMTUNE_REDIS_URL.
  StoreOptions store = StoreOptions::from_env();
  // Lookup table that Session::create loads when tuning.lut is null; "" for none. A table
  // that does not load is reported once and ignored: tuning goes on without it.
  std::string lut_path = lut_path_from_env();
  // Cost model that Session::create loads when tuning.benchmark is top:K and tuning.model is
  // null; "" finds the model shipped for this device (find_cost_model). A model that does not
  // load or was trained elsewhere is reported once and not used.
  std::string model_path = model_path_from_env();
};

// A prepared kernel of one backend and config for one problem; what `gemmtune bench` uses to
// time the peers outside the dispatch path.
class GemmKernel {
 public:
  virtual ~GemmKernel() = default;
  // `stream`: the cudaStream_t to enqueue on for a CUDA device; ignored on the CPU.
  virtual Status run(const void* a, const void* b, void* c, void* stream = nullptr) = 0;
  virtual const std::string& backend() const = 0;
  virtual const KernelConfig& config() const = 0;
  // The library's own name for what runs where the config does not say it all (cuBLASLt: the
  // algorithm id, tile, stages and split that its heuristic ranked at `algo`); else empty.
  virtual std::string detail() const { return {}; }
};

// What a session runs for a problem it has tuned.
struct PickInfo {
  std::string backend;
  KernelConfig config;
  double time_us = -1;  // median measured when it was picked; -1 for a routed shape
  // Served by a sub-kernel of the session's multi-kernel op for the problem's family
  // (SessionOptions::routing) rather than by a tuning of this very problem.
  bool routed = false;
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> create(SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // C = alpha·A·B + beta·C. The first call of a problem tunes it (or takes the stored pick);
  // later calls go straight to the kernel. Safe to call from many threads. On a CUDA device
  // a, b and c are device pointers and the work is enqueued on `stream` (a cudaStream_t;
  // null is the default stream) without waiting for it.
  Status gemm(const Problem& problem, const void* a, const void* b, void* c, void* stream = nullptr);

  // Makes the first gemm() of a problem fast: tunes it (or loads its stored pick) and
  // installs the kernel, without running it.
  Status prepare(const Problem& problem);

  // Tunes the problem now, even if it was tuned before or stored, installs the pick for gemm(),
  // writes it to the store and returns the full report.
  Result<TuneReport> tune(const Problem& problem);

  // Like gemm()'s first call: the stored pick when the store holds a valid one (the report is
  // rebuilt from the stored timings, store_hit set), else a tuning written to the store.
  Result<TuneReport> tune_or_load(const Problem& problem);

  // One backend's kernel for the problem; with a default-constructed config, the first config
  // of that backend's default list.
  Result<std::unique_ptr<GemmKernel>> kernel(const Problem& problem, std::string_view backend,
                                             const KernelConfig& config = {});

  // The configs one backend offers for a problem in the session's search space (pruned and
  // capped, as the autotuner gets them); empty when it cannot run the problem.
  Result<std::vector<KernelConfig>> configs(const Problem& problem, std::string_view backend) const;

  // The configs of one backend that do all of that library's own work per call, for comparing
  // what a call costs when its shape is known only at the call, as Session::gemm's is
  // (`gemmtune bench`): libxsmm looking its JIT kernel up on every call, oneDNN's sgemm (its
  // matmul primitives are handles made once per shape). For most backends, its configs.
  Result<std::vector<KernelConfig>> per_call_configs(const Problem& problem, std::string_view backend) const;

  // Times each kernel on the problem, interleaved in one run on the device's own random
  // operands (host memory and the wall clock on the CPU; device memory and CUDA events on a
  // GPU). One result per kernel, in order.
  std::vector<Result<TimingStats>> time_kernels(const Problem& problem, const std::vector<GemmKernel*>& kernels,
                                                const TimingOptions& timing);

  // Times gemm() on the problem (dispatch included) and each peer kernel, interleaved in one
  // run on the device's own random operands (device memory and CUDA events on a GPU).
  // One result per entry: gemmtune first, then the peers in order. Prepares the problem first.
  std::vector<Result<TimingStats>> time_with_peers(const Problem& problem, const std::vector<GemmKernel*>& peers,
                                                   const TimingOptions& timing);

  // Measures every config of the search space on the problem, each on its own: what
  // `gemmtune sweep` records (gemmtune/sweep.h). Ignores the lookup table and cost model.
  Result<ShapeMeasurement> measure_configs(const Problem& problem, const SweepOptions& options);

  // The installed pick for a problem; not_found if the session has not tuned it.
  Result<PickInfo> pick(const Problem& problem) const;

  // Names of the backends this session chooses among, in their fixed order.
  std::vector<std::string> backend_names() const;
  // Backend::version() of every backend of the device, by name: what stored picks, sweeps
  // and cost models are checked against.
  std::map<std::string, std::string> backend_versions() const;
  const DeviceInfo& device() const;
  const SessionOptions& options() const;

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  friend SessionStore* session_store(Session& session);
  std::unique_ptr<Impl> impl_;
};

// Names of every backend compiled into this build for a device kind, with a note for those
// compiled out ("openblas: not built (GEMMTUNE_WITH_OPENBLAS=OFF)").
struct BackendAvailability {
  std::string name;
  bool available = false;
  std::string note;
};
std::vector<BackendAvailability> compiled_backends(DeviceKind kind);

}  // namespace gemmtune
