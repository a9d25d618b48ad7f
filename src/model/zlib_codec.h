// zlib streams for the cost model's trees: a model file carries its XGBoost booster compressed
// (version 2 of the file), about a quarter of its UBJSON size. The shipped models are in the
// repository and travel in every device call's carry, which is capped.
#pragma once

#include <cstddef>
#include <string>

#include "gemmtune/status.h"

namespace gemmtune {

// The most a decompressed booster may take: a 300-round model of depth 6 is about 1.4 MB, so
// this bounds a damaged or hostile stream long before memory does.
inline constexpr std::size_t kMaxInflatedBytes = std::size_t(256) << 20;

std::string zlib_compress(const std::string& bytes);
// corrupt_data where the stream is damaged, truncated or inflates past kMaxInflatedBytes.
Result<std::string> zlib_decompress(const std::string& stream);

}  // namespace gemmtune
