// The decimal text of a size or a config field, for the messages of the GPU families' config
// checks. One definition for every family: with a unity build (GEMMTUNE_UNITY_BUILD) their
// sources share a unit, where a copy in each would be defined twice.
#pragma once

#include <cstdint>
#include <string>

namespace gemmtune::cuda {

inline std::string text(std::int64_t value) { return std::to_string(value); }

}  // namespace gemmtune::cuda
