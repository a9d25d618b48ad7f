// The entry point: a Session is bound to one device, tunes each problem on first sight and
// dispatches straight to the picked kernel afterwards.
#pragma once

#include <cstdint>
#include <functional>
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
#include "gemmtune/tuning_options.h"

namespace gemmtune {

class SessionStore;
class Session;
class Backend;
struct GemmArgs;
// The session's tuning store, or null when it has none; for gemmtune's own multi-kernel ops.
SessionStore* session_store(Session& session);
// A call that the kernel serving `problem` refused where its operands lie (`refused`, code
// unsupported: an address off TMA's 16-byte grid), run by a kernel of the session's that reads
// any address; for gemmtune's own multi-kernel ops, as Session::gemm does it for its own calls.
Status run_at_any_address(Session& session, const Problem& problem, const void* a, const void* b, void* c,
                          void* stream, const Status& refused);
// A call whose A or B may lie off the grid (`grid_mask`, address bits) its kernel was tuned
// at, as Session::gemm makes its own: `call` (a multi-kernel op's sub-kernel) runs it on copies
// moved onto the grid where they lie off it.
Status run_off_grid(Session& session, const Problem& problem, const GemmArgs& args, std::uintptr_t grid_mask,
                    const std::function<Status(const GemmArgs&)>& call);

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
  // algorithm id, tile, stages and split that its heuristic ranked at `rank`); else empty.
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

  // The configs of one backend that a program calling that library itself runs, which
  // `gemmtune bench` times as the peer: its configs, but cuBLASLt's with the library's own
  // preferences (split-k may add its partial sums in bf16, which gemmtune's choices do not).
  Result<std::vector<KernelConfig>> peer_configs(const Problem& problem, std::string_view backend) const;

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
  // Session::create on the device's own backends; tests give backends that behave as they say
  // (src/session/session_testing.h).
  friend Result<std::unique_ptr<Session>> create_session(SessionOptions options, DeviceInfo device,
                                                         std::vector<std::unique_ptr<Backend>> backends);
  friend Status run_at_any_address(Session& session, const Problem& problem, const void* a, const void* b, void* c,
                                   void* stream, const Status& refused);
  friend Status run_off_grid(Session& session, const Problem& problem, const GemmArgs& args, std::uintptr_t grid_mask,
                             const std::function<Status(const GemmArgs&)>& call);
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
