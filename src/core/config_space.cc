#include "config_space.h"

#include <algorithm>
#include <set>

namespace gemmtune {

std::int64_t next_power_of_2(std::int64_t value) {
  std::int64_t power = 1;
  while (power < value) power <<= 1;
  return power;
}

std::int32_t scale_block_to_dim(std::int32_t block, std::int64_t dim, std::int32_t min_block) {
  const std::int64_t limit = std::max<std::int64_t>(next_power_of_2(dim), min_block);
  return std::int32_t(std::max<std::int64_t>(std::min<std::int64_t>(block, limit), min_block));
}

std::int32_t round_up_to_multiple(std::int32_t value, std::int32_t multiple) {
  return multiple <= 0 ? value : (value + multiple - 1) / multiple * multiple;
}

std::vector<KernelConfig> dedup_and_cap(const std::vector<KernelConfig>& configs, std::size_t cap) {
  std::vector<KernelConfig> kept;
  std::set<KernelConfig> seen;
  for (const KernelConfig& config : configs) {
    if (kept.size() >= cap) break;
    if (seen.insert(config).second) kept.push_back(config);
  }
  return kept;
}

}  // namespace gemmtune
