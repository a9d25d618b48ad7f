#include "guarded_choice.h"

#include <cstdint>
#include <exception>

#include "../core/operand_grid.h"

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
      // Every kernel carries the grids its family was tuned at for A and for B (Session::gemm
      // reads them per call).
      const auto mask = [&](std::int64_t elements, DType type) {
        return std::uintptr_t(backend.operand_grid_bytes(elements * std::int64_t(dtype_size(type))) - 1);
      };
      out.kernel->operand_grid_mask =
          pack_grid_masks({mask(problem.a_elements(), problem.a_type()), mask(problem.b_elements(), problem.b_type())});
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
