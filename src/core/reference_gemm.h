// The plain, obviously-correct GEMM every other kernel is checked against. Float products
// accumulate in double, so its own rounding error is far below any tolerance it enforces.
#pragma once

#include <cstdint>
#include <vector>

#include "gemmtune/problem.h"

namespace gemmtune {

// Element of any dtype as a double (f16/bf16 from their bit patterns).
double load_as_double(const void* data, DType type, std::int64_t index);
// Stores with the same rounding the kernels use (round to nearest even; s32 wraps mod 2^32).
void store_from_double(void* data, DType type, std::int64_t index, double value);

// The full product into C, in C's dtype.
void reference_gemm(const Problem& problem, const void* a, const void* b, void* c);

// A·B alone (no alpha, no beta), every element in double: m × n, row-major. Each element is
// summed over k in order (p = 0, 1, …) in double, however the work is split: B goes through in
// panels converted to double once, and the panels are shared out among the cores, so a full
// reference costs little next to the tuning that checks against it.
std::vector<double> reference_products(const Problem& problem, const void* a, const void* b);

// The Euclidean norms of A's rows (m) and of B's columns (n): ‖a_i‖·‖b_j‖ bounds Σ_p |a_ip·b_pj|
// (Cauchy-Schwarz), which an element's rounding error scales with.
std::vector<double> row_norms_of_a(const Problem& problem, const void* a);
std::vector<double> column_norms_of_b(const Problem& problem, const void* b);

}  // namespace gemmtune
