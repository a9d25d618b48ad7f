#include "verify.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "reference_gemm.h"

namespace gemmtune {
namespace {

// Multiply-adds the reference may spend on one check (~50 ms in its double loop).
constexpr double kReferenceBudget = double(1 << 25);
constexpr std::int64_t kMinSampledRows = 8;

std::string at(std::int64_t i, std::int64_t j) {
  // Appended piece by piece: GCC 12 reads `"(" + std::to_string(i)` inlined here as a memcpy of
  // overlapping ranges (-Wrestrict, a false positive).
  std::string out = "(";
  out += std::to_string(i);
  out += ", ";
  out += std::to_string(j);
  out += ')';
  return out;
}

}  // namespace

ReferenceSample compute_reference_sample(const Problem& p, const TestBuffers& buffers) {
  ReferenceSample sample;
  const double per_row = double(std::max<std::int64_t>(1, p.n())) * double(std::max<std::int64_t>(1, p.k()));
  const std::int64_t budget_rows =
      std::max<std::int64_t>(kMinSampledRows, std::int64_t(kReferenceBudget / per_row));
  if (budget_rows >= p.m()) {
    for (std::int64_t i = 0; i < p.m(); ++i) sample.rows.push_back(i);
  } else {
    for (std::int64_t t = 0; t < budget_rows; ++t) sample.rows.push_back(t * (p.m() - 1) / (budget_rows - 1));
    sample.rows.erase(std::unique(sample.rows.begin(), sample.rows.end()), sample.rows.end());
  }
  reference_rows(p, buffers.a(), buffers.b(), buffers.c_initial(), sample.rows, sample.values);
  return sample;
}

double tolerance_for(const Problem& p) {
  if (p.c_type() == DType::s32) return 0.0;
  if (p.c_type() == DType::f16 || p.c_type() == DType::bf16) return 1e-2;
  // TF32 rounds each input to a 10-bit mantissa (unit roundoff 2^-11 ≈ 4.9e-4) before the
  // products, so the normalized error is ~5e-4 whatever k is; 5e-3 leaves room without letting
  // a wrong kernel (error ~1) through.
  if (p.allow_tf32()) return 5e-3;
  return 1e-5 * std::max(1.0, std::sqrt(double(p.k()) / 1024.0));
}

VerifyOutcome check_output(const Problem& p, const TestBuffers& buffers, const ReferenceSample& reference) {
  VerifyOutcome outcome;
  if (std::string guard = buffers.check_guards(); !guard.empty()) {
    outcome.reason = "out-of-bounds write: " + guard;
    return outcome;
  }
  const void* c = buffers.c();
  const bool integer = p.c_type() == DType::s32;
  // Every element must have been written: with beta == 0, C was poisoned before the run.
  if (p.beta() == 0.0) {
    for (std::int64_t i = 0; i < p.m(); ++i) {
      for (std::int64_t j = 0; j < p.n(); ++j) {
        const std::int64_t index = p.c_index(i, j);
        const bool poisoned = integer ? static_cast<const std::int32_t*>(c)[index] == 0x5a5a5a5a
                                      : std::isnan(load_as_double(c, p.c_type(), index));
        if (poisoned) {
          outcome.reason = "element " + at(i, j) + " was not written (or is NaN)";
          return outcome;
        }
      }
    }
  }
  double diff2 = 0, ref2 = 0;
  for (std::size_t r = 0; r < reference.rows.size(); ++r) {
    const std::int64_t i = reference.rows[r];
    for (std::int64_t j = 0; j < p.n(); ++j) {
      const double expected = reference.values[r * std::size_t(p.n()) + std::size_t(j)];
      double got = load_as_double(c, p.c_type(), p.c_index(i, j));
      if (integer) {
        // s32 wraps modulo 2^32 in every backend; compare the wrapped reference.
        const auto wrapped = std::int32_t(std::uint32_t(std::int64_t(expected)));
        if (std::int32_t(got) != wrapped) {
          outcome.reason = "element " + at(i, j) + " is " + std::to_string(std::int64_t(got)) + ", expected " +
                           std::to_string(wrapped);
          return outcome;
        }
        continue;
      }
      if (!std::isfinite(got)) {
        outcome.reason = "element " + at(i, j) + " is not finite";
        return outcome;
      }
      diff2 += (got - expected) * (got - expected);
      ref2 += expected * expected;
    }
  }
  outcome.error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  const double tolerance = tolerance_for(p);
  if (outcome.error > tolerance) {
    char text[128];
    std::snprintf(text, sizeof text, "normalized error %.3g exceeds tolerance %.3g", outcome.error, tolerance);
    outcome.reason = text;
    return outcome;
  }
  outcome.ok = true;
  return outcome;
}

}  // namespace gemmtune
