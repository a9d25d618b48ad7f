// How far apart does the CPU timer read one kernel from itself? The shape is tuned (or loaded
// from the store), then timed REPS times as `gemmtune bench` times it: Session::gemm first,
// then the pick as a handle twice and oneDNN's sgemm and matmul twice each, and OpenBLAS once
// as the bench's slow peer, interleaved in one run of SAMPLES rounds. Each pair of instances
// of one kernel is an A/A control; for each pair and each way of reading two candidates of one
// run, it prints the spread over the REPS runs: the standard deviation of the log of the
// ratio, and the lowest and highest ratio. The ways of reading: the ratio of the two medians
// (the bench's ratios), the median of the rounds' ratios (the tuner's final round), and the
// ratio of the two fastest samples.
//
// Built with the bench targets (`cpu_aa_noise`). From the build folder:
//   bin/cpu_aa_noise 256 256 256 nn 7 60
//   cpu_aa_noise M N K LAYOUT SAMPLES REPS     (f32; the session's store as gemmtune's: GEMMTUNE_CACHE)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gemmtune/session.h"

using namespace gemmtune;

namespace {

struct Instance {
  std::string name;
  std::unique_ptr<GemmKernel> kernel;
};

// The spread of log(ratio) over the runs: standard deviation, lowest and highest ratio.
void print_spread(const char* reading, const std::string& pair, const std::vector<double>& ratios) {
  double mean = 0;
  for (double r : ratios) mean += std::log(r);
  mean /= double(ratios.size());
  double var = 0;
  for (double r : ratios) var += (std::log(r) - mean) * (std::log(r) - mean);
  const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
  std::printf("  %-14s %-20s sd %.4f  lowest %.3f  highest %.3f\n", reading, pair.c_str(),
              std::sqrt(var / double(ratios.size())), *lo, *hi);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: cpu_aa_noise M N K LAYOUT SAMPLES REPS\n");
    return 2;
  }
  const auto problem = Problem::create(std::atoll(argv[1]), std::atoll(argv[2]), std::atoll(argv[3]), DType::f32, argv[4]);
  const int samples = std::max(1, std::atoi(argv[5])), reps = std::max(2, std::atoi(argv[6]));
  if (!problem.is_ok()) {
    std::fprintf(stderr, "%s\n", problem.status().message().c_str());
    return 2;
  }
  auto session = Session::create();
  if (!session.is_ok()) {
    std::fprintf(stderr, "%s\n", session.status().message().c_str());
    return 1;
  }
  Session& s = **session;
  if (auto tuned = s.tune_or_load(*problem); !tuned.is_ok()) {
    std::fprintf(stderr, "tuning: %s\n", tuned.status().message().c_str());
    return 1;
  }
  const PickInfo pick = *s.pick(*problem);
  std::printf("%s, pick: %s %s; %d runs of %d rounds\n", problem->describe().c_str(), pick.backend.c_str(),
              pick.config.to_string().c_str(), reps, samples);

  // Index 0 of each run's results is Session::gemm ("gemm").
  std::vector<Instance> instances;
  auto add = [&](const std::string& name, const std::string& backend, const KernelConfig& config) {
    auto kernel = s.kernel(*problem, backend, config);
    if (!kernel.is_ok()) {
      std::printf("  (%s left out: %s)\n", name.c_str(), kernel.status().message().c_str());
      return;
    }
    instances.push_back({name, std::move(kernel).value()});
  };
  add("pick", pick.backend, pick.config);
  add("pick'", pick.backend, pick.config);
  // oneDNN's per-call entry (dnnl_sgemm) and its default matmul primitive, as the bench times them.
  const auto per_call = s.per_call_configs(*problem, "onednn");
  const auto handles = s.configs(*problem, "onednn");
  if (per_call.is_ok() && !per_call->empty()) {
    add("sgemm", "onednn", per_call->front());
    add("sgemm'", "onednn", per_call->front());
  }
  if (handles.is_ok() && !handles->empty()) {
    add("matmul", "onednn", handles->front());
    add("matmul'", "onednn", handles->front());
  }
  add("openblas", "openblas", {});
  std::vector<std::string> names = {"gemm"};
  std::vector<GemmKernel*> peers;
  for (Instance& i : instances) {
    names.push_back(i.name);
    peers.push_back(i.kernel.get());
  }
  auto index_of = [&](const std::string& name) {
    return std::size_t(std::find(names.begin(), names.end(), name) - names.begin());
  };

  // The A/A pairs: two instances of one kernel, and Session::gemm against its own kernel.
  std::vector<std::pair<std::string, std::string>> pairs = {{"gemm", "pick"}, {"pick'", "pick"}};
  for (const char* name : {"sgemm", "matmul"}) {
    if (index_of(name) < names.size() && index_of(std::string(name) + "'") < names.size()) {
      pairs.push_back({std::string(name) + "'", name});
    }
  }
  using Reading = std::function<double(const TimingStats&, const TimingStats&)>;
  const std::vector<std::pair<const char*, Reading>> readings = {
      {"medians", [](const TimingStats& a, const TimingStats& b) { return a.median_us / b.median_us; }},
      {"by round", [](const TimingStats& a, const TimingStats& b) {
         return median_ratio_by_round(a.sample_us, b.sample_us);
       }},
      {"fastest", [](const TimingStats& a, const TimingStats& b) {
         return *std::min_element(a.sample_us.begin(), a.sample_us.end()) /
                *std::min_element(b.sample_us.begin(), b.sample_us.end());
       }},
  };
  std::vector<std::vector<std::vector<double>>> ratios(readings.size(), std::vector<std::vector<double>>(pairs.size()));
  TimingOptions timing = s.options().tuning.timing;
  timing.samples = samples;
  for (int rep = 0; rep < reps; ++rep) {
    const std::vector<Result<TimingStats>> stats = s.time_with_peers(*problem, peers, timing);
    for (std::size_t i = 0; i < stats.size(); ++i) {
      if (!stats[i].is_ok()) {
        std::fprintf(stderr, "%s: %s\n", names[i].c_str(), stats[i].status().message().c_str());
        return 1;
      }
    }
    for (std::size_t r = 0; r < readings.size(); ++r) {
      for (std::size_t p = 0; p < pairs.size(); ++p) {
        ratios[r][p].push_back(readings[r].second(*stats[index_of(pairs[p].first)], *stats[index_of(pairs[p].second)]));
      }
    }
    std::fprintf(stderr, "run %d of %d: gemm %.2f us\n", rep + 1, reps, stats[0]->median_us);
  }
  for (std::size_t r = 0; r < readings.size(); ++r) {
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      print_spread(readings[r].first, pairs[p].first + " / " + pairs[p].second, ratios[r][p]);
    }
  }
  return 0;
}
