// Checking a kernel's output against the reference by normalized error,
// ‖out − ref‖ / ‖ref‖, with a tolerance per dtype (shared/benchmarking.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemmtune/problem.h"
#include "test_buffers.h"

namespace gemmtune {

// The reference on a subset of rows: all rows of small problems; for large ones an evenly
// spaced sample that includes the first and last row, so verifying a 4096³ product costs a
// fraction of a second. Every element of C is still checked for having been written.
struct ReferenceSample {
  std::vector<std::int64_t> rows;
  std::vector<double> values;  // rows.size() × n
};

ReferenceSample compute_reference_sample(const Problem& problem, const TestBuffers& buffers);

// The largest normalized error a correct kernel may show: 0 for integer output; for f32
// output 1e-5 scaled with sqrt(k) past k = 1024 (rounding grows with the sum's length);
// 1e-2 for f16/bf16 output (the output rounding alone is ~4e-3); 5e-3 for f32 computed as TF32.
double tolerance_for(const Problem& problem);

struct VerifyOutcome {
  bool ok = false;
  double error = 0;   // normalized error over the sampled rows
  std::string reason; // empty when ok
};

// Checks C in `buffers` after a kernel ran on them.
VerifyOutcome check_output(const Problem& problem, const TestBuffers& buffers, const ReferenceSample& reference);

}  // namespace gemmtune
