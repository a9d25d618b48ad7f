// Rules shared by every backend's config space (the analogue of Inductor's
// template_heuristics): scaling block sizes to the problem, dedup and cap. Each backend keeps
// its own named lists and its own hardware pruning rules beside its kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gemmtune/config.h"

namespace gemmtune {

std::int64_t next_power_of_2(std::int64_t value);

// A block never larger than the problem needs: min(block, next_power_of_2(dim)), but at least
// min_block. Without this a 16×16 problem would be run by 128×128 tiles that are mostly padding.
std::int32_t scale_block_to_dim(std::int32_t block, std::int64_t dim, std::int32_t min_block);

std::int32_t round_up_to_multiple(std::int32_t value, std::int32_t multiple);

// Keeps the first of equal configs, in order, and at most `cap` of them.
std::vector<KernelConfig> dedup_and_cap(const std::vector<KernelConfig>& configs, std::size_t cap);

}  // namespace gemmtune
