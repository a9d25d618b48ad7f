#include "reference_gemm.h"

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

void reference_rows(const Problem& p, const void* a, const void* b, const void* c_in,
                    std::int64_t row_begin, std::int64_t row_end, std::vector<double>& out) {
  const std::int64_t n = p.n();
  out.assign(std::size_t((row_end - row_begin) * n), 0.0);
  // B converted once per call, row-major k×n, so the inner loop runs over contiguous memory.
  std::vector<double> b_rows(std::size_t(p.k() * n));
  for (std::int64_t kk = 0; kk < p.k(); ++kk) {
    for (std::int64_t j = 0; j < n; ++j) b_rows[std::size_t(kk * n + j)] = load_as_double(b, p.b_type(), p.b_index(kk, j));
  }
  for (std::int64_t i = row_begin; i < row_end; ++i) {
    double* row = &out[std::size_t((i - row_begin) * n)];
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
}

void reference_gemm(const Problem& p, const void* a, const void* b, void* c) {
  std::vector<double> rows;
  constexpr std::int64_t kRowsPerStep = 64;
  for (std::int64_t i0 = 0; i0 < p.m(); i0 += kRowsPerStep) {
    const std::int64_t i1 = std::min(p.m(), i0 + kRowsPerStep);
    reference_rows(p, a, b, c, i0, i1, rows);
    for (std::int64_t i = i0; i < i1; ++i) {
      for (std::int64_t j = 0; j < p.n(); ++j) {
        store_from_double(c, p.c_type(), p.c_index(i, j), rows[std::size_t((i - i0) * p.n() + j)]);
      }
    }
  }
}

}  // namespace gemmtune
