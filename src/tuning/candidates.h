// The autotuner's candidates: one (backend, config) each with its report, gathered from the
// choice selection, prepared over the cores (compiles included), and checked against the
// reference before anything is timed.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "../core/backend.h"
#include "../core/harness.h"
#include "choice_selection.h"
#include "gemmtune/tune_report.h"
#include "guarded_choice.h"

namespace gemmtune {

struct Candidate {
  const Backend* backend = nullptr;
  std::unique_ptr<Kernel> kernel;
  ChoiceReport report;
};

// A candidate of `backend` at `config`, not prepared yet.
Candidate candidate(const Backend& backend, const KernelConfig& config);
// Every selected config of every backend, and a skipped entry saying why for a backend that
// offers none.
std::vector<Candidate> gather(const Problem& problem, const BackendList& backends, const ChoiceSelection& selection);
// Prepares one candidate (a no-op unless its status is ok), marking it skipped or failed with
// the reason, and recording where a JIT prepare went.
void prepare_one(const Problem& problem, Candidate& c);
// Prepares candidates[first..] in parallel, marking those that cannot be prepared.
void prepare_all(const Problem& problem, std::vector<Candidate>& candidates, std::size_t first = 0);
// The indices from `first` on, in the order prepare_all takes them: the backends' estimated
// prepare cost, costliest first; ties (and candidates that prepare nothing) in list order.
std::vector<std::size_t> costliest_first(const Problem& problem, const std::vector<Candidate>& candidates,
                                         std::size_t first);
// Runs candidates[first..] once each on the harness's operands, marking wrong or failed ones.
void verify_all(std::vector<Candidate>& candidates, Harness& harness, std::size_t first = 0);
// CPU time of this process so far, every thread's, in seconds.
double process_cpu_s();
bool any_ok(const std::vector<Candidate>& candidates);

}  // namespace gemmtune
