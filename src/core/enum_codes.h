// Enum values from outside the type system (the C ABI's problem struct, a worker message): the
// enum when the number names one of its values, else invalid_argument naming the number.
// Kept out of the public dtype.h, which the CPU kernels include: a declaration added there
// would recompile every kernel object.
#pragma once

#include <cstdint>

#include "gemmtune/dtype.h"
#include "gemmtune/status.h"

namespace gemmtune {

Result<DType> dtype_from_code(std::int64_t code);

}  // namespace gemmtune
