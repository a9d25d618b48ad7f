// gemmtune against the peer libraries on one shape, timed in one interleaved run: the
// comparison `gemmtune bench` and the demo print, with its controls (A/A, the tuning's
// runner-up), as a table and as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gemmtune/session.h"

namespace gemmtune::cli {

// gemmtune (through Session::gemm, dispatch included) against each peer backend on one shape,
// timed interleaved in the same run. A peer with several configs (oneDNN on all cores and on
// one) is timed at each and counts at its fastest, as a user who tried both would run it: the
// config whose time over Session::gemm's, round by round, is the lowest.
struct PeerTime {
  std::string backend;
  double time_us = -1;  // the fastest config's median per call; -1: the peer cannot run this problem
  double ratio = -1;    // the fastest config's time over Session::gemm's (median_ratio_by_round)
  std::string config;   // the peer's fastest config
  // The fastest config's per-call time in each round of the interleaved run, in order.
  std::vector<double> rounds_us;
  std::string note;     // why not
  // The peer's first config, what a caller of the library gets without tuning it (cuBLASLt:
  // its first heuristic algorithm; oneDNN: every core): -1 if it could not run.
  double default_us = -1, default_ratio = -1;
  std::string default_config;
  std::string default_detail, detail;     // GemmKernel::detail() of the first and the fastest config
  // The fastest of the configs that do all of the library's work per call, with the shape
  // given at the call as Session::gemm's is (libxsmm's lookup, oneDNN's sgemm; for OpenBLAS
  // every config): -1 if none ran.
  double per_call_us = -1, per_call_ratio = -1;
  std::string per_call_config;
};
struct ShapeComparison {
  std::string problem;
  std::int64_t m = 0, n = 0, k = 0;
  double gemmtune_us = 0;          // Session::gemm, dispatch included
  double gemmtune_kernel_us = -1;  // the pick's kernel called as a handle, no dispatch
  std::vector<double> gemmtune_rounds_us;  // Session::gemm's per-call time in each round
  std::vector<double> gemmtune_kernel_rounds_us;  // the handle's
  std::string pick_backend;
  std::string pick_config;
  std::string pick_detail;  // GemmKernel::detail() of the pick
  // The tuning's final round, which made the pick (TuneOptions::finalists): each finalist with
  // its time over the fastest finalist's, round by round. Empty for a pick loaded from the store
  // or a routed shape.
  std::vector<ChoiceReport> finalists;
  // The A/A control: the pick's kernel timed as two candidates of the same run; the second
  // copy's time over the first's, round by round, the median (-1: not timed). What two
  // timings of one kernel differ by is the resolution of every other ratio in the row.
  double aa_ratio = -1;
  // The tuning's runner-up (the finalist next behind the pick in its final round), timed again
  // beside the pick: its time over the pick's in the tuning (final_ratio) and in this run
  // (round by round, the median). -1 when the tuning had no runner-up (a store hit, a routed
  // shape, a single choice).
  std::string runner_up_backend, runner_up_config;
  double runner_up_tuning_ratio = -1, runner_up_bench_ratio = -1;
  double tuning_s = 0;
  std::vector<PeerTime> peers;
};
Result<ShapeComparison> compare_with_peers(Session& session, const Problem& problem,
                                           const std::vector<std::string>& peers, const TimingOptions& timing);

// One line per shape: gemmtune's time and pick, each peer's time and peer/gemmtune ratio
// (above 1: gemmtune is faster), then the geometric means of the ratios.
std::string comparison_table(const std::vector<ShapeComparison>& rows);
nlohmann::json comparison_json(const std::vector<ShapeComparison>& rows);

}  // namespace gemmtune::cli
