// The shape sets of shared/benchmarking.md, and shape files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemmtune/status.h"

namespace gemmtune::cli {

struct Shape {
  std::int64_t m, n, k;
};

// "small", "skinny" (M 1, 4, 16 against N = K = 4096), "llm" (M up to max_llm_m), "square"
// (up to max_square), or a file of "M N K" lines ('#' starts a comment).
Result<std::vector<Shape>> shape_set(const std::string& name, std::int64_t max_llm_m, std::int64_t max_square);

}  // namespace gemmtune::cli
