// Pieces the CLI commands share: options common to several commands, building a Session from
// them, JSON of reports, and the comparison of gemmtune against the peers on one shape.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "args.h"
#include "gemmtune/session.h"

namespace gemmtune::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

// Prints "gemmtune: <message>" and returns kExitUsage for invalid arguments, else kExitFailed.
int fail(const Status& status);

// --device, --search, --benchmark, --fast, --lut, --model, --backends, --samples,
// --min-sample-ms, --verbose, --cache, --cache-mode.
std::vector<OptionSpec> session_options();
Result<SessionOptions> session_options_from(const Args& args);
// --cache, --cache-mode: where the tuning store is; over the GEMMTUNE_CACHE* environment.
std::vector<OptionSpec> store_options();
Result<StoreOptions> store_options_from(const Args& args);

nlohmann::json problem_json(const Problem& problem);
nlohmann::json report_json(const TuneReport& report);
nlohmann::json device_json(const DeviceInfo& device);

// gemmtune (through Session::gemm, dispatch included) against each peer backend on one shape,
// timed interleaved in the same run. A peer with several configs (oneDNN on all cores and on
// one) is timed at each and counts at its fastest, as a user who tried both would run it.
struct PeerTime {
  std::string backend;
  double time_us = -1;  // -1: the peer cannot run this problem
  std::string config;   // the peer's fastest config
  // The fastest config's per-call time in each round of the interleaved run, in order.
  std::vector<double> rounds_us;
  std::string note;     // why not
  // The peer's first config, what a caller of the library gets without tuning it (cuBLASLt:
  // its first heuristic algorithm; oneDNN: every core): -1 if it could not run.
  double default_us = -1;
  std::string default_config;
  // The fastest of the configs that do all of the library's work per call, with the shape
  // given at the call as Session::gemm's is (libxsmm's lookup, oneDNN's sgemm; for OpenBLAS
  // every config): -1 if none ran.
  double per_call_us = -1;
  std::string per_call_config;
};
struct ShapeComparison {
  std::string problem;
  std::int64_t m = 0, n = 0, k = 0;
  double gemmtune_us = 0;          // Session::gemm, dispatch included
  double gemmtune_kernel_us = -1;  // the pick's kernel called as a handle, no dispatch
  std::vector<double> gemmtune_rounds_us;  // Session::gemm's per-call time in each round
  std::string pick_backend;
  std::string pick_config;
  // The tuning's final round, which made the pick (TuneOptions::finalists): each finalist with
  // its time over the fastest finalist's, round by round. Empty for a pick loaded from the store
  // or a routed shape.
  std::vector<ChoiceReport> finalists;
  double tuning_s = 0;
  std::vector<PeerTime> peers;
};
Result<ShapeComparison> compare_with_peers(Session& session, const Problem& problem,
                                           const std::vector<std::string>& peers, const TimingOptions& timing);

// The libraries gemmtune is measured against on the session's device, whatever the session
// chooses among (--backends): oneDNN, OpenBLAS and libxsmm on the CPU, cuBLASLt's first
// heuristic pick (what torch.mm gets) on a GPU. `only`, when not empty, narrows them (--peers).
std::vector<std::string> peer_backends(const Session& session, const std::vector<std::string>& only = {});

// "a,b,c" → {"a", "b", "c"}, empty items dropped.
std::vector<std::string> split_list(const std::string& list);

// Runs gnuplot on a script; unavailable when it fails (or is not installed).
Status run_gnuplot(const std::string& script_path);

// exp(mean(log x)) of the positive entries; 0 when there are none.
double geometric_mean(const std::vector<double>& values);

}  // namespace gemmtune::cli

namespace gemmtune::cli {

// One line per shape: gemmtune's time and pick, each peer's time and peer/gemmtune ratio
// (above 1: gemmtune is faster), then the geometric means of the ratios.
std::string comparison_table(const std::vector<ShapeComparison>& rows);
nlohmann::json comparison_json(const std::vector<ShapeComparison>& rows);

}  // namespace gemmtune::cli
