#include "verify.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "number_text.h"
#include "reference_gemm.h"

namespace gemmtune {
namespace {

// Unit roundoffs: f32 (the accumulator and the epilogue's arithmetic), and TF32's inputs, whose
// mantissas keep 10 bits (2^-10 covers truncation as well as rounding to nearest).
const double kF32Unit = std::ldexp(1.0, -24);
const double kTf32InputUnit = std::ldexp(1.0, -10);

double output_unit(DType type) {
  switch (type) {
    case DType::f16: return std::ldexp(1.0, -11);
    case DType::bf16: return std::ldexp(1.0, -8);
    default: return kF32Unit;
  }
}

// Half the output type's smallest subnormal: the most rounding can move a result near zero.
double output_floor(DType type) {
  switch (type) {
    case DType::f16: return std::ldexp(1.0, -25);
    case DType::bf16: return std::ldexp(1.0, -134);
    default: return std::ldexp(1.0, -150);
  }
}

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

// The s32 poison TestBuffers writes into C before a run with beta == 0.
constexpr std::int32_t kIntegerPoison = 0x5a5a5a5a;

}  // namespace

Reference compute_reference(const Problem& p, const TestBuffers& buffers) {
  return {reference_products(p, buffers.a(), buffers.b()), row_norms_of_a(p, buffers.a()),
          column_norms_of_b(p, buffers.b())};
}

BoundTerms bound_terms(const Problem& p) {
  return {2.0 * double(p.k()) * kF32Unit + (p.allow_tf32() ? 2.0 * kTf32InputUnit : 0.0), kF32Unit,
          output_unit(p.c_type()), output_floor(p.c_type())};
}

double element_bound(const Problem& p, double product, double magnitude, double c_initial) {
  if (p.c_type() == DType::s32) return 0.0;
  const BoundTerms t = bound_terms(p);
  const double alpha = std::fabs(p.alpha());
  const double scaled = alpha * std::fabs(product), initial = std::fabs(p.beta() * c_initial);
  const double before_output = t.per_magnitude * alpha * magnitude + 2.0 * t.f32_unit * (scaled + initial);
  return before_output + t.output_unit * (scaled + initial + before_output) + t.output_floor;
}

VerifyOutcome check_output(const Problem& p, const TestBuffers& buffers, const Reference& reference) {
  VerifyOutcome outcome;
  if (std::string guard = buffers.check_guards(); !guard.empty()) {
    outcome.reason = "out-of-bounds write: " + guard;
    return outcome;
  }
  const void* c = buffers.c();
  const void* c_initial = buffers.c_initial();
  const bool integer = p.c_type() == DType::s32;
  for (std::int64_t i = 0; i < p.m(); ++i) {
    for (std::int64_t j = 0; j < p.n(); ++j) {
      const std::int64_t index = p.c_index(i, j);
      const double product = reference.products[std::size_t(i * p.n() + j)];
      const double initial = p.beta() != 0.0 ? load_as_double(c_initial, p.c_type(), index) : 0.0;
      const double expected = p.alpha() * product + p.beta() * initial;
      const double got = load_as_double(c, p.c_type(), index);
      if (integer) {
        // s32 wraps modulo 2^32 in every backend; compare the wrapped reference.
        const auto wrapped = std::int32_t(std::uint32_t(std::int64_t(expected)));
        const auto have = std::int32_t(got);
        if (have != wrapped) {
          outcome.reason = "element " + at(i, j) +
                           (p.beta() == 0.0 && have == kIntegerPoison ? " was not written"
                                                                      : " is " + std::to_string(have) +
                                                                            ", expected " + std::to_string(wrapped));
          return outcome;
        }
        continue;
      }
      if (!std::isfinite(expected)) {
        // NaN or infinite inputs: the same non-finite value, as the reference computes it.
        const bool same = std::isnan(expected) ? std::isnan(got) : got == expected;
        if (!same) {
          outcome.reason = "element " + at(i, j) + " is " + number(got) + ", expected " + number(expected);
          return outcome;
        }
        continue;
      }
      if (std::isnan(got)) {
        // With beta == 0 C was poisoned with NaN before the run.
        outcome.reason = "element " + at(i, j) + (p.beta() == 0.0 ? " was not written (or is NaN)" : " is NaN");
        return outcome;
      }
      const double magnitude = reference.a_norms[std::size_t(i)] * reference.b_norms[std::size_t(j)];
      const double bound = element_bound(p, product, magnitude, initial);
      const double error = std::fabs(got - expected);
      if (!(error <= bound)) {
        outcome.reason = "element " + at(i, j) + " is " + number(got) + ", expected " + number(expected) +
                         " (bound " + number(bound) + ")";
        outcome.error = bound > 0 ? error / bound : error;
        return outcome;
      }
      if (bound > 0) outcome.error = std::max(outcome.error, error / bound);
    }
  }
  outcome.ok = true;
  return outcome;
}

}  // namespace gemmtune
