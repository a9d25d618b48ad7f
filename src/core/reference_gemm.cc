#include "reference_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "usable_cpus.h"

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

// A panel of B in double: kPanelDepth rows of k by kPanelColumns columns (256 KB, an L2's worth
// on the machines we run), and a row block of A against it at a time.
constexpr std::int64_t kPanelColumns = 128;
constexpr std::int64_t kPanelDepth = 256;

// rows[r][0, columns) += Σ_p a[r][p] · panel[p][0, columns) for p in [0, depth), p in order.
// Compiled for AVX2 and for the baseline; both add the same products in the same order (no
// fused multiply-add), so the reference is the same on every machine.
__attribute__((target_clones("avx2", "default"))) void accumulate_panel(double* out, std::int64_t ld_out,
                                                                          const double* a, std::int64_t rows,
                                                                          const double* panel, std::int64_t depth,
                                                                          std::int64_t columns) {
  for (std::int64_t r = 0; r < rows; ++r) {
    double* row = out + r * ld_out;
    for (std::int64_t p = 0; p < depth; ++p) {
      const double a_rp = a[r * depth + p];
      const double* b_row = panel + p * columns;
      for (std::int64_t j = 0; j < columns; ++j) row[j] += a_rp * b_row[j];
    }
  }
}

}  // namespace

std::vector<double> reference_products(const Problem& p, const void* a, const void* b) {
  const std::int64_t m = p.m(), n = p.n(), k = p.k();
  std::vector<double> out(std::size_t(m * n), 0.0);
  if (m == 0 || n == 0 || k == 0) return out;
  const std::int64_t panels = (n + kPanelColumns - 1) / kPanelColumns;
  const int threads = int(std::clamp<std::int64_t>(usable_cpus(), 1, panels));
  auto work = [&](int t) {
    std::vector<double> panel(std::size_t(kPanelDepth * kPanelColumns));
    std::vector<double> a_block;
    constexpr std::int64_t kRowBlock = 16;
    for (std::int64_t panel_index = t; panel_index < panels; panel_index += threads) {
      const std::int64_t j0 = panel_index * kPanelColumns, columns = std::min(kPanelColumns, n - j0);
      for (std::int64_t p0 = 0; p0 < k; p0 += kPanelDepth) {
        const std::int64_t depth = std::min(kPanelDepth, k - p0);
        for (std::int64_t pp = 0; pp < depth; ++pp) {
          for (std::int64_t j = 0; j < columns; ++j) {
            panel[std::size_t(pp * columns + j)] = load_as_double(b, p.b_type(), p.b_index(p0 + pp, j0 + j));
          }
        }
        for (std::int64_t i0 = 0; i0 < m; i0 += kRowBlock) {
          const std::int64_t rows = std::min(kRowBlock, m - i0);
          a_block.resize(std::size_t(rows * depth));
          for (std::int64_t r = 0; r < rows; ++r) {
            for (std::int64_t pp = 0; pp < depth; ++pp) {
              a_block[std::size_t(r * depth + pp)] = load_as_double(a, p.a_type(), p.a_index(i0 + r, p0 + pp));
            }
          }
          accumulate_panel(&out[std::size_t(i0 * n + j0)], n, a_block.data(), rows, panel.data(), depth, columns);
        }
      }
    }
  };
  run_workers(threads, work);
  return out;
}

std::vector<double> row_norms_of_a(const Problem& p, const void* a) {
  std::vector<double> norms(std::size_t(p.m()), 0.0);
  for (std::int64_t i = 0; i < p.m(); ++i) {
    double sum = 0;
    for (std::int64_t kk = 0; kk < p.k(); ++kk) {
      const double v = load_as_double(a, p.a_type(), p.a_index(i, kk));
      sum += v * v;
    }
    norms[std::size_t(i)] = std::sqrt(sum);
  }
  return norms;
}

std::vector<double> column_norms_of_b(const Problem& p, const void* b) {
  std::vector<double> sums(std::size_t(p.n()), 0.0);
  for (std::int64_t kk = 0; kk < p.k(); ++kk) {
    for (std::int64_t j = 0; j < p.n(); ++j) {
      const double v = load_as_double(b, p.b_type(), p.b_index(kk, j));
      sums[std::size_t(j)] += v * v;
    }
  }
  for (double& s : sums) s = std::sqrt(s);
  return sums;
}

void reference_gemm(const Problem& p, const void* a, const void* b, void* c) {
  const std::vector<double> products = reference_products(p, a, b);
  for (std::int64_t i = 0; i < p.m(); ++i) {
    for (std::int64_t j = 0; j < p.n(); ++j) {
      double value = p.alpha() * products[std::size_t(i * p.n() + j)];
      if (p.beta() != 0.0) value += p.beta() * load_as_double(c, p.c_type(), p.c_index(i, j));
      store_from_double(c, p.c_type(), p.c_index(i, j), value);
    }
  }
}

}  // namespace gemmtune
