// The inverse of upgrade_config_text (gemmtune/config.h), for cost models trained before
// `algo` was split into `kernel` and `rank`: the number a config's `algo` would have had.
#pragma once

#include <cstdint>
#include <string_view>

#include "gemmtune/config.h"

namespace gemmtune {

// cpu: 0 packed, 1 rows, … 8 rows-dots; oneDNN sgemm and libxsmm per_call: 1; the mma family's
// fault kernels: 9001, 9002; any other config: its rank (0 where it has none).
std::int32_t legacy_algo_number(std::string_view backend, const KernelConfig& config);

}  // namespace gemmtune
