// One product C = alpha·A·B + beta·C from Python operands: the operands checked against each
// other, placed as gemmtune addresses them (in place where their strides allow, else copied),
// the ProblemSpec that describes them, and the call.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>

#include "gemmtune/op.h"
#include "gemmtune/problem.h"
#include "gemmtune/session.h"
#include "operands.h"

namespace gemmtune::python {

// C's dtype when the caller names none: the library's (f32, f16, s32 for s8), except f32 for
// bf16, which numpy has no dtype for.
DType natural_output(DType input);

// What a caller needs of the operands' placement.
struct PlacementRules {
  // Layouts A and B must have (a GemmOp's family); nullopt takes either.
  std::optional<Layout> a_layout, b_layout;
  // Every operand tightly packed (a GemmOp's operands with dynamic extents are).
  bool tight = false;
  // A column-major C may be computed as Cᵀ = Bᵀ·Aᵀ (Session::gemm writes C row-major).
  bool may_transpose = true;
  // C's dtype when no `out` is given; nullopt: natural_output of the inputs.
  std::optional<DType> output_dtype;
};

struct Product {
  Operand a, b, c;
  ProblemSpec spec;
  OperandDevice device;
  void* stream = nullptr;   // the cudaStream_t the product is enqueued on; null: the legacy default
  pybind11::object result;  // what the call returns: `out`, or the new array
  bool scalar = false;      // two vectors and no `out`: the call returns result's one element
  // When C is computed in a temporary (an `out` gemmtune cannot address): where it goes after.
  std::optional<Operand> write_back;
};

// Reads and places the operands; raises TypeError or gemmtune.InvalidArgumentError naming the
// operand that is wrong. `stream`: CUDA operands only, the stream as DLPack numbers it (None:
// the legacy default stream).
Product plan_product(pybind11::handle a, pybind11::handle b, pybind11::handle out, double alpha, double beta,
                     const PlacementRules& rules, pybind11::handle stream = pybind11::none());

// Raises InvalidArgumentError unless the product's operands are on the session's device.
void check_device(const Product& product, const Session& session);

// Runs the product through the session (GIL released while it tunes or runs) and returns C.
pybind11::object run_product(Session& session, Product& product);
// The same through a GemmOp at the product's dims.
pybind11::object run_product(GemmOp& op, Product& product);

}  // namespace gemmtune::python
