// libFuzzer target for the C ABI's problem struct (problem_from_c, which gemmtune_gemm calls):
// the bytes are the struct as a C caller may fill it (enum fields holding any int, dims of any
// size, NaN scalars), or a null pointer when the input is shorter than the struct. Each is a
// problem or an invalid_argument/unsupported error, never undefined behaviour; a problem that is
// accepted spans buffers whose sizes compute without overflow and keys that read back equal.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/c_problem.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gemmtune;
  gemmtune_problem raw;
  const bool null = size < sizeof raw;
  if (!null) std::memcpy(&raw, data, sizeof raw);
  auto problem = problem_from_c(null ? nullptr : &raw);
  if (!problem.is_ok()) {
    const ErrorCode code = problem.status().code();
    fuzz::check_refusal(problem.status(), code == ErrorCode::unsupported ? code : ErrorCode::invalid_argument, size);
    return 0;
  }
  if (problem->a_elements() < 0 || problem->b_elements() < 0 || problem->c_elements() < 0) fuzz::fail();
  if (!std::isfinite(problem->min_bytes()) || !std::isfinite(problem->flops())) fuzz::fail();
  auto again = Problem::create(problem->spec());
  if (!again.is_ok() || !(ProblemKey::of(*again) == ProblemKey::of(*problem))) fuzz::fail();
  auto key = ProblemKey::parse(ProblemKey::of(*problem).to_string());
  if (!key.is_ok() || !(*key == ProblemKey::of(*problem))) fuzz::fail();
  (void)problem->describe();
  return 0;
}
