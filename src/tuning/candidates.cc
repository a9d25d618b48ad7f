#include "candidates.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include <sys/resource.h>

#include "../core/usable_cpus.h"

namespace gemmtune {

Candidate candidate(const Backend& backend, const KernelConfig& config) {
  Candidate c;
  c.backend = &backend;
  c.report.backend = std::string(backend.name());
  c.report.config = config;
  c.report.status = ChoiceStatus::ok;
  return c;
}

std::vector<Candidate> gather(const Problem& problem, const BackendList& backends, const ChoiceSelection& selection) {
  std::vector<Candidate> candidates;
  for (std::size_t b = 0; b < backends.size(); ++b) {
    const Backend& backend = *backends[b];
    if (selection.offered[b] == 0) {
      // Say why the backend offers nothing rather than leave it out silently.
      Candidate c;
      c.backend = &backend;
      c.report.backend = std::string(backend.name());
      c.report.status = ChoiceStatus::skipped;
      Status why = backend.can_implement(problem, {});
      c.report.reason = why.is_ok() ? "no config fits this problem" : why.message();
      candidates.push_back(std::move(c));
      continue;
    }
    for (const KernelConfig& config : selection.configs[b]) candidates.push_back(candidate(backend, config));
  }
  return candidates;
}

void prepare_one(const Problem& problem, Candidate& c) {
  if (c.report.status != ChoiceStatus::ok) return;
  const auto start = std::chrono::steady_clock::now();
  PreparedChoice prepared = prepare_choice(*c.backend, problem, c.report.config);
  c.report.status = prepared.status;
  c.report.reason = prepared.error.is_ok() ? "" : prepared.error.message();
  if (prepared.status == ChoiceStatus::skipped) return;  // nothing was prepared
  c.report.prepare_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!prepared.kernel) return;
  c.kernel = std::move(prepared.kernel);
  const Kernel::PrepareTimes times = c.kernel->prepare_times();
  c.report.compile_s = times.compile_s;
  c.report.check_s = times.check_s;
}

std::vector<std::size_t> costliest_first(const Problem& problem, const std::vector<Candidate>& candidates,
                                         std::size_t first) {
  std::vector<std::pair<double, std::size_t>> costs;
  for (std::size_t i = first; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const bool prepares = c.report.status == ChoiceStatus::ok && c.backend != nullptr;
    costs.emplace_back(prepares ? c.backend->prepare_cost(problem, c.report.config) : 0.0, i);
  }
  std::stable_sort(costs.begin(), costs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::size_t> order;
  for (const auto& [cost, i] : costs) order.push_back(i);
  return order;
}

// Preparing can mean compiling (NVRTC, oneDNN JIT): spread it over the cores, the costliest
// first (Backend::prepare_cost), so that the longest compiles of a cold tuning start at once
// instead of last. A GPU family's prepare ends with a check in the one worker process, which
// the threads take in turn; twice as many threads as cores keep every core compiling while some
// of them wait there (the compiler itself runs on at most as many threads as cores).
void prepare_all(const Problem& problem, std::vector<Candidate>& candidates, std::size_t first) {
  const std::vector<std::size_t> order = costliest_first(problem, candidates, first);
  std::atomic<std::size_t> next{0};
  const unsigned cores = unsigned(usable_cpus());
  const unsigned workers = std::max(1u, std::min<unsigned>(2 * cores, unsigned(order.size())));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < order.size(); i = next++) prepare_one(problem, candidates[order[i]]);
    });
  }
  for (auto& thread : pool) thread.join();
}

// CPU time of this process so far, every thread's, in seconds.
double process_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void verify_all(std::vector<Candidate>& candidates, Harness& harness, std::size_t first) {
  for (std::size_t i = first; i < candidates.size(); ++i) {
    Candidate& c = candidates[i];
    if (c.report.status != ChoiceStatus::ok) continue;
    CheckedRun checked = run_and_check(*c.kernel, harness);
    c.report.status = checked.status;
    c.report.reason = std::move(checked.reason);
    c.report.error = checked.error;
  }
}

bool any_ok(const std::vector<Candidate>& candidates) {
  for (const Candidate& c : candidates) {
    if (c.report.status == ChoiceStatus::ok) return true;
  }
  return false;
}

}  // namespace gemmtune
