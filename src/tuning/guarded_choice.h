// Preparing and checking one choice, the one way every part of gemmtune does it (the
// autotuner's candidates, the sweep, a stored or routed pick): a backend's refusal, failure or
// exception becomes a status and its reason, never an escape.
#pragma once

#include <memory>
#include <string>

#include "../core/backend.h"
#include "../core/harness.h"
#include "gemmtune/tune_report.h"

namespace gemmtune {

struct PreparedChoice {
  std::unique_ptr<Kernel> kernel;          // null unless status is ok
  ChoiceStatus status = ChoiceStatus::ok;  // skipped (can_implement said no) or prepare_failed
  Status error = Status::ok();             // the backend's own (an exception: internal)
};
// can_implement, then prepare.
PreparedChoice prepare_choice(const Backend& backend, const Problem& problem, const KernelConfig& config);
// The same, as the kernel or the error that says why there is none.
Result<std::unique_ptr<Kernel>> prepare_checked(const Backend& backend, const Problem& problem,
                                                const KernelConfig& config);

struct CheckedRun {
  ChoiceStatus status = ChoiceStatus::ok;  // run_failed or wrong_result otherwise
  std::string reason;
  double error = 0;  // the verifier's largest |error| / bound (when the run completed)
};
// One run on the harness's operands (C reset first), checked element by element.
CheckedRun run_and_check(Kernel& kernel, Harness& harness);

}  // namespace gemmtune
