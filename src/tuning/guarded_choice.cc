#include "guarded_choice.h"

#include <cstdint>
#include <exception>

namespace gemmtune {

PreparedChoice prepare_choice(const Backend& backend, const Problem& problem, const KernelConfig& config) {
  PreparedChoice out;
  if (Status can = backend.can_implement(problem, config); !can.is_ok()) {
    out.status = ChoiceStatus::skipped;
    out.error = std::move(can);
    return out;
  }
  try {
    auto kernel = backend.prepare(problem, config);
    if (kernel.is_ok()) {
      out.kernel = std::move(kernel).value();
      // Every kernel carries the grid its family was tuned at (Session::gemm reads it per call).
      out.kernel->operand_grid_mask = std::uintptr_t(backend.operand_grid_bytes() - 1);
    } else {
      out.status = ChoiceStatus::prepare_failed;
      out.error = kernel.status();
    }
  } catch (const std::exception& e) {
    out.status = ChoiceStatus::prepare_failed;
    out.error = internal_error(std::string("prepare threw: ") + e.what());
  } catch (...) {
    out.status = ChoiceStatus::prepare_failed;
    out.error = internal_error("prepare threw a non-standard exception");
  }
  return out;
}

Result<std::unique_ptr<Kernel>> prepare_checked(const Backend& backend, const Problem& problem,
                                                const KernelConfig& config) {
  PreparedChoice prepared = prepare_choice(backend, problem, config);
  if (prepared.kernel) return std::move(prepared.kernel);
  return prepared.error;
}

CheckedRun run_and_check(Kernel& kernel, Harness& harness) {
  CheckedRun out;
  harness.reset_c();
  if (Status ran = run_guarded(kernel, harness.args()); !ran.is_ok()) {
    out.status = ChoiceStatus::run_failed;
    out.reason = ran.message();
    return out;
  }
  const VerifyOutcome outcome = harness.check();
  out.error = outcome.error;
  if (!outcome.ok) {
    out.status = ChoiceStatus::wrong_result;
    out.reason = outcome.reason;
  }
  return out;
}

}  // namespace gemmtune
