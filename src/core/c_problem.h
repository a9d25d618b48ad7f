// The C ABI's problem struct, checked: whatever a C caller put in it (a null pointer, an enum
// field holding a number no enumerator names, dims that overflow) is an error naming the field,
// never undefined behaviour. c_api.cc calls it; tests/fuzz/c_problem_fuzz.cc fuzzes it.
#pragma once

#include "gemmtune/gemmtune.h"
#include "gemmtune/problem.h"

namespace gemmtune {

Result<Problem> problem_from_c(const gemmtune_problem* problem);

}  // namespace gemmtune
