// What to compute: C = alpha * A·B + beta * C, with A m×k, B k×n and C m×n.
//
// A and B are each stored row- or column-major with a leading dimension; C is row-major.
// In the BLAS letters of `--layout`, "n" is row-major and "t" column-major, so "nt" is
// C = A·Wᵀ with W stored n×k row-major, the layout of a linear layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "gemmtune/dtype.h"
#include "gemmtune/status.h"

namespace gemmtune {

enum class Layout : std::uint8_t { row_major, col_major };

// The layout of a number from outside (the C ABI, a worker message); invalid_argument naming the
// number otherwise.
Result<Layout> layout_from_code(std::int64_t code);

// The fields a caller fills; Problem::create checks them.
struct ProblemSpec {
  std::int64_t m = 0, n = 0, k = 0;
  DType a_type = DType::f32;
  DType b_type = DType::f32;
  DType c_type = DType::f32;  // f32, f16, bf16 (same as inputs or f32), s32 for s8 inputs
  Layout a_layout = Layout::row_major;
  Layout b_layout = Layout::row_major;
  std::int64_t lda = 0, ldb = 0, ldc = 0;  // 0 means tightly packed
  double alpha = 1.0;
  double beta = 0.0;
  // f32 inputs only: kernels may round A and B to TF32 (10-bit mantissa) and use tensor cores.
  // Off by default, as in PyTorch, since it changes results beyond f32 rounding.
  bool allow_tf32 = false;
};

class Problem {
 public:
  // Rejects negative or oversized dims, leading dimensions too small for their layout,
  // unsupported dtype combinations and non-finite or (for s8) non-integral scalars.
  static Result<Problem> create(const ProblemSpec& spec);
  // The common case: tightly packed operands of one dtype (s8 gives s32 output),
  // `layout` in BLAS letters "nn", "nt", "tn", "tt".
  static Result<Problem> create(std::int64_t m, std::int64_t n, std::int64_t k, DType type,
                                std::string_view layout = "nn");

  std::int64_t m() const { return spec_.m; }
  std::int64_t n() const { return spec_.n; }
  std::int64_t k() const { return spec_.k; }
  DType a_type() const { return spec_.a_type; }
  DType b_type() const { return spec_.b_type; }
  DType c_type() const { return spec_.c_type; }
  // f32 for float inputs, s32 for s8 inputs.
  DType acc_type() const;
  Layout a_layout() const { return spec_.a_layout; }
  Layout b_layout() const { return spec_.b_layout; }
  std::int64_t lda() const { return spec_.lda; }
  std::int64_t ldb() const { return spec_.ldb; }
  std::int64_t ldc() const { return spec_.ldc; }
  double alpha() const { return spec_.alpha; }
  double beta() const { return spec_.beta; }
  bool allow_tf32() const { return spec_.allow_tf32; }
  const ProblemSpec& spec() const { return spec_; }

  // Element offsets: A(i, p), B(p, j), C(i, j).
  std::int64_t a_index(std::int64_t i, std::int64_t p) const {
    return spec_.a_layout == Layout::row_major ? i * spec_.lda + p : p * spec_.lda + i;
  }
  std::int64_t b_index(std::int64_t p, std::int64_t j) const {
    return spec_.b_layout == Layout::row_major ? p * spec_.ldb + j : j * spec_.ldb + p;
  }
  std::int64_t c_index(std::int64_t i, std::int64_t j) const { return i * spec_.ldc + j; }

  // Elements each buffer spans (0 when a dim is 0).
  std::int64_t a_elements() const;
  std::int64_t b_elements() const;
  std::int64_t c_elements() const;

  double flops() const { return 2.0 * double(spec_.m) * double(spec_.n) * double(spec_.k); }
  // Fewest bytes a kernel must move: each input read once, C written (and read if beta != 0).
  double min_bytes() const;
  // "nn", "nt", "tn" or "tt".
  std::string layout_letters() const;
  // "m=100 n=300 k=200 f32 nn", with dtypes, strides and scalars shown where they are not the default.
  std::string describe() const;

  // A number this problem and its copies share and no other Problem object has (never 0). A
  // Problem never changes, so two with one identity are the same problem: Session::gemm
  // compares it before it compares the fields.
  std::uint64_t identity() const { return identity_; }

 private:
  explicit Problem(const ProblemSpec& spec);
  ProblemSpec spec_;
  std::uint64_t identity_;
};

// "nn" → {row_major, row_major} etc.
Result<std::pair<Layout, Layout>> parse_layout_letters(std::string_view letters);

// The canonical, hashable identity of a problem for dispatch tables and stores. Two problems
// with equal keys run the same kernels at the same speed; alpha is not part of it (same speed),
// beta only as zero / non-zero (a kernel reads C or does not).
struct ProblemKey {
  std::int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  DType a_type = DType::f32, b_type = DType::f32, c_type = DType::f32;
  Layout a_layout = Layout::row_major, b_layout = Layout::row_major;
  bool beta_zero = true;
  bool allow_tf32 = false;  // f32 only; shown as a ":tf32" suffix so keys without it are unchanged

  static ProblemKey of(const Problem& problem);
  bool operator==(const ProblemKey&) const = default;
  // "f32.f32.f32:nn:100x300x200:ld200.300.300:b0" (then ":tf32" when allowed) — stable across
  // versions; stores rely on it.
  std::string to_string() const;
  // Reads what to_string() writes; corrupt_data naming the part that is wrong otherwise.
  // Only the canonical text parses (parse(t).to_string() == t).
  static Result<ProblemKey> parse(std::string_view text);
  // A problem with this key (alpha 1, beta 0 or 1); invalid_argument when the key describes
  // none (a leading dimension too small, an unsupported dtype combination …).
  Result<Problem> problem() const;
  std::size_t hash() const;
};

}  // namespace gemmtune

template <>
struct std::hash<gemmtune::ProblemKey> {
  std::size_t operator()(const gemmtune::ProblemKey& key) const { return key.hash(); }
};
