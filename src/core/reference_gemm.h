// The plain, obviously-correct GEMM every other kernel is checked against. Float products
// accumulate in double, so its own rounding error is far below any tolerance it enforces.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gemmtune/problem.h"

namespace gemmtune {

// Element of any dtype as a double (f16/bf16 from their bit patterns).
double load_as_double(const void* data, DType type, std::int64_t index);
// Stores with the same rounding the kernels use (round to nearest even; s32 wraps mod 2^32).
void store_from_double(void* data, DType type, std::int64_t index, double value);

// Rows [row_begin, row_end) of C = alpha·A·B + beta·C, in double, written to `out`
// (row-major, (row_end - row_begin) × n). `c_in` is read only when beta != 0.
void reference_rows(const Problem& problem, const void* a, const void* b, const void* c_in,
                    std::int64_t row_begin, std::int64_t row_end, std::vector<double>& out);

// The listed rows of C, in that order (rows.size() × n); B is converted once for all of them.
void reference_rows(const Problem& problem, const void* a, const void* b, const void* c_in,
                    std::span<const std::int64_t> rows, std::vector<double>& out);

// The full product into C, in C's dtype.
void reference_gemm(const Problem& problem, const void* a, const void* b, void* c);

}  // namespace gemmtune
