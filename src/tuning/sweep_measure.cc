#include "sweep_measure.h"

#include <algorithm>
#include <chrono>

#include "../core/harness.h"
#include "autotuner.h"
#include "guarded_choice.h"

namespace gemmtune {
namespace {

using Clock = std::chrono::steady_clock;

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// The single kernel's timing, and its wall time.
Result<TimingStats> time_one(Harness& harness, Kernel& kernel, const TimingOptions& timing, double& cost_us) {
  const auto start = Clock::now();
  harness.reset_c();
  std::vector<Result<TimingStats>> stats = harness.time({&kernel}, timing);
  cost_us = micros_since(start);
  return stats.front();
}

// can_implement, prepare and one verified run, each step's wall time recorded; the kernel when
// all went well.
std::unique_ptr<Kernel> prepare_and_verify(const Backend& backend, const Problem& problem, Harness& harness,
                                           ConfigMeasurement& m) {
  const auto prepare_start = Clock::now();
  PreparedChoice prepared = prepare_choice(backend, problem, m.config);
  m.status = prepared.status;
  m.reason = prepared.error.is_ok() ? "" : prepared.error.message();
  m.prepare_us = micros_since(prepare_start);
  if (!prepared.kernel) return nullptr;
  const auto verify_start = Clock::now();
  CheckedRun checked = run_and_check(*prepared.kernel, harness);
  m.status = checked.status;
  m.reason = std::move(checked.reason);
  m.verify_us = micros_since(verify_start);
  if (m.status != ChoiceStatus::ok) return nullptr;
  return std::move(prepared.kernel);
}

}  // namespace

Result<ShapeMeasurement> measure_every_config(const Problem& problem, const DeviceInfo& device,
                                              const BackendList& backends, const SweepOptions& options) {
  if (options.full_within < 1) return invalid_argument("full_within must be >= 1");
  ShapeMeasurement out;
  const auto setup_start = Clock::now();
  GEMMTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Harness> harness, create_harness(device));
  GEMMTUNE_RETURN_IF_ERROR(harness->prepare(problem, options.seed));
  out.setup_us = micros_since(setup_start);

  // One pass, one kernel alive at a time (a GPU kernel may hold gigabytes of split-k
  // workspace): each config is prepared, verified, given the short sample, and timed in full
  // when its short sample is within full_within of the fastest so far. The fastest so far is
  // never faster than the final fastest, so every config within full_within of that is timed
  // in full; some early ones beyond it are too.
  const TimingOptions quick = short_sample_timing(options.timing);
  double fastest = -1;
  for (const auto& backend : backends) {
    if (!options.backends.empty() &&
        std::find(options.backends.begin(), options.backends.end(), backend->name()) == options.backends.end()) {
      continue;
    }
    for (const KernelConfig& config : backend->configs(problem, options.search)) {
      ConfigMeasurement m;
      m.backend = std::string(backend->name());
      m.config = config;
      std::unique_ptr<Kernel> kernel = prepare_and_verify(*backend, problem, *harness, m);
      if (kernel) {
        auto stats = time_one(*harness, *kernel, quick, m.quick_cost_us);
        if (stats.is_ok()) {
          m.quick_us = m.time_us = short_sample_us(*stats);
          fastest = fastest < 0 ? m.quick_us : std::min(fastest, m.quick_us);
          if (m.quick_us <= options.full_within * fastest) stats = time_one(*harness, *kernel, options.timing, m.full_cost_us);
        }
        if (!stats.is_ok()) {
          m.status = ChoiceStatus::run_failed;
          m.reason = stats.status().message();
          m.time_us = -1;
        } else if (m.full_cost_us > 0) {
          m.time_us = stats->median_us;
          m.mad_us = stats->mad_us;
          m.full = true;
        }
      }
      out.configs.push_back(std::move(m));
    }
  }
  return out;
}

}  // namespace gemmtune
