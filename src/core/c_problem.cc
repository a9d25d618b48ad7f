#include "c_problem.h"

#include <cstring>
#include <string>

#include "enum_codes.h"

namespace gemmtune {
namespace {

// A C enum field may hold any int: read as the enum type, a value no enumerator names is
// undefined behaviour in C++, so the field's bytes are read as the int they are.
template <class Enum>
int enum_bits(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int), "the C enums of gemmtune.h are int-sized");
  int value = 0;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

Result<DType> dtype_field(const char* name, const gemmtune_dtype& field) {
  auto type = dtype_from_code(enum_bits(field));
  if (!type.is_ok()) return invalid_argument(std::string(name) + ": " + type.status().message());
  return *type;
}

Result<Layout> layout_field(const char* name, const gemmtune_layout& field) {
  auto layout = layout_from_code(enum_bits(field));
  if (!layout.is_ok()) return invalid_argument(std::string(name) + ": " + layout.status().message());
  return *layout;
}

}  // namespace

Result<Problem> problem_from_c(const gemmtune_problem* problem) {
  if (problem == nullptr) return invalid_argument("problem is null");
  const gemmtune_problem& p = *problem;
  ProblemSpec spec;
  spec.m = p.m;
  spec.n = p.n;
  spec.k = p.k;
  GEMMTUNE_ASSIGN_OR_RETURN(spec.a_type, dtype_field("a_type", p.a_type));
  GEMMTUNE_ASSIGN_OR_RETURN(spec.b_type, dtype_field("b_type", p.b_type));
  GEMMTUNE_ASSIGN_OR_RETURN(spec.c_type, dtype_field("c_type", p.c_type));
  GEMMTUNE_ASSIGN_OR_RETURN(spec.a_layout, layout_field("a_layout", p.a_layout));
  GEMMTUNE_ASSIGN_OR_RETURN(spec.b_layout, layout_field("b_layout", p.b_layout));
  spec.lda = p.lda;
  spec.ldb = p.ldb;
  spec.ldc = p.ldc;
  spec.alpha = p.alpha;
  spec.beta = p.beta;
  return Problem::create(spec);
}

}  // namespace gemmtune
