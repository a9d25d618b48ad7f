#include "reference_gemm.h"

#include <algorithm>
#include <cstring>

namespace gemmtune {

double load_as_double(const void* data, DType type, std::int64_t index) {
  switch (type) {
    case DType::f32: return static_cast<const float*>(data)[index];
    case DType::f16: return f16_to_f32(static_cast<const std::uint16_t*>(data)[index]);
    case DType::bf16: return bf16_to_f32(static_cast<const std::uint16_t*>(data)[index]);
    case DType::s8: return static_cast<const std::int8_t*>(data)[index];
    case DType::s32: return static_cast<const std::int32_t*>(data)[index];
  }
  return 0;
}

void store_from_double(void* data, DType type, std::int64_t index, double value) {
  switch (type) {
    case DType::f32: static_cast<float*>(data)[index] = float(value); return;
    case DType::f16: static_cast<std::uint16_t*>(data)[index] = f32_to_f16(float(value)); return;
    case DType::bf16: static_cast<std::uint16_t*>(data)[index] = f32_to_bf16(float(value)); return;
    case DType::s8: static_cast<std::int8_t*>(data)[index] = std::int8_t(value); return;
    case DType::s32: {
      // Integer results are exact in double up to 2^53; wrap to 32 bits as int32 hardware does.
      const auto wide = static_cast<std::int64_t>(value);
      static_cast<std::int32_t*>(data)[index] = static_cast<std::int32_t>(static_cast<std::uint32_t>(wide));
      return;
    }
  }
}

namespace {

// B converted once, row-major k×n in double, so each row's inner loop runs over contiguous
// memory and the conversion is paid once per call rather than once per row.
std::vector<double> b_as_double_rows(const Problem& p, const void* b) {
  const std::int64_t n = p.n();
  std::vector<double> b_rows(std::size_t(p.k() * n));
  for (std::int64_t kk = 0; kk < p.k(); ++kk) {
    for (std::int64_t j = 0; j < n; ++j) b_rows[std::size_t(kk * n + j)] = load_as_double(b, p.b_type(), p.b_index(kk, j));
  }
  return b_rows;
}

// Row i of alpha·A·B + beta·C into row[0, n).
void reference_row(const Problem& p, const void* a, const std::vector<double>& b_rows, const void* c_in, std::int64_t i,
                   double* row) {
  const std::int64_t n = p.n();
  std::fill(row, row + n, 0.0);
  for (std::int64_t kk = 0; kk < p.k(); ++kk) {
    const double a_ik = load_as_double(a, p.a_type(), p.a_index(i, kk));
    const double* b_row = &b_rows[std::size_t(kk * n)];
    for (std::int64_t j = 0; j < n; ++j) row[j] += a_ik * b_row[j];
  }
  for (std::int64_t j = 0; j < n; ++j) {
    double value = p.alpha() * row[j];
    if (p.beta() != 0.0) value += p.beta() * load_as_double(c_in, p.c_type(), p.c_index(i, j));
    row[j] = value;
  }
}

}  // namespace

void reference_rows(const Problem& p, const void* a, const void* b, const void* c_in, std::span<const std::int64_t> rows,
                    std::vector<double>& out) {
  const std::int64_t n = p.n();
  out.assign(rows.size() * std::size_t(n), 0.0);
  const std::vector<double> b_rows = b_as_double_rows(p, b);
  for (std::size_t r = 0; r < rows.size(); ++r) reference_row(p, a, b_rows, c_in, rows[r], &out[r * std::size_t(n)]);
}

void reference_rows(const Problem& p, const void* a, const void* b, const void* c_in,
                    std::int64_t row_begin, std::int64_t row_end, std::vector<double>& out) {
  std::vector<std::int64_t> rows;
  for (std::int64_t i = row_begin; i < row_end; ++i) rows.push_back(i);
  reference_rows(p, a, b, c_in, rows, out);
}

void reference_gemm(const Problem& p, const void* a, const void* b, void* c) {
  const std::vector<double> b_rows = b_as_double_rows(p, b);
  std::vector<double> row(std::size_t(p.n()));
  for (std::int64_t i = 0; i < p.m(); ++i) {
    reference_row(p, a, b_rows, c, i, row.data());
    for (std::int64_t j = 0; j < p.n(); ++j) store_from_double(c, p.c_type(), p.c_index(i, j), row[std::size_t(j)]);
  }
}

}  // namespace gemmtune
