// Checking a kernel's output against the reference, element by element: every element of C
// must lie within a bound derived from the dtypes, k and the element's own inputs
// (shared/benchmarking.md), so a few wholly wrong elements, or a dropped k-tail in a few rows,
// cannot hide in an error averaged over C.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemmtune/problem.h"
#include "test_buffers.h"

namespace gemmtune {

// What every element of C is checked against: A·B in double (no alpha, no beta: those are
// applied at the check, from C's initial values) and the norms that bound each element's
// rounding.
struct Reference {
  std::vector<double> products;  // m × n, row-major: Σ_p a_ip·b_pj
  std::vector<double> a_norms;   // m: ‖row i of A‖₂
  std::vector<double> b_norms;   // n: ‖column j of B‖₂
};

Reference compute_reference(const Problem& problem, const TestBuffers& buffers);

// The most element (i, j) of a correct kernel's C may differ from alpha·product + beta·c0:
//  - the sum's rounding in an f32 accumulator: 2·k·2⁻²⁴ of Σ_p |a_ip·b_pj| (plus 2·2⁻¹⁰ of it
//    for TF32, whose inputs lose all but 10 mantissa bits), with ‖a_i‖·‖b_j‖ standing in for
//    that sum (Cauchy-Schwarz: never smaller), scaled by |alpha|;
//  - alpha·acc and + beta·c0 each rounded in f32;
//  - the output's own rounding (2⁻¹¹ for f16, 2⁻⁸ for bf16, 2⁻²⁴ for f32), applied to every
//    term a kernel might round to the output type on the way (alpha·A·B and beta·c0 alone too),
//    and half the output's smallest subnormal.
// 0 for s32 output: integer arithmetic is exact (modulo 2³²).
double element_bound(const Problem& problem, double product, double magnitude, double c_initial);

// The constants of element_bound for a problem, for checkers that apply it elsewhere (the GPU
// harness's device checker): bound = before + output_unit·(|alpha·product| + |beta·c0| + before)
// + output_floor, where before = per_magnitude·|alpha|·magnitude + 2·f32_unit·(|alpha·product| +
// |beta·c0|).
struct BoundTerms {
  double per_magnitude = 0, f32_unit = 0, output_unit = 0, output_floor = 0;
};
BoundTerms bound_terms(const Problem& problem);

struct VerifyOutcome {
  bool ok = false;
  // The largest |error| / bound over C: below 1 when every element is within its bound (0 for
  // exact integer output).
  double error = 0;
  std::string reason;  // empty when ok
};

// Checks C in `buffers` after a kernel ran on them: no guard byte touched, every element
// written, every element within its bound. A NaN or infinite reference element must be matched
// by the same (NaN for NaN, the same infinity).
VerifyOutcome check_output(const Problem& problem, const TestBuffers& buffers, const Reference& reference);

}  // namespace gemmtune
