#include "gemmtune/tuning_options.h"

#include <charconv>

namespace gemmtune {

Result<SearchSpace> parse_search_space(std::string_view name) {
  if (name == "default") return SearchSpace::default_space;
  if (name == "exhaustive") return SearchSpace::exhaustive;
  return invalid_argument("unknown search space '" + std::string(name) + "' (expected default or exhaustive)");
}

std::string BenchmarkSpace::to_string() const { return all() ? "all" : "top:" + std::to_string(top_k); }

Result<BenchmarkSpace> parse_benchmark_space(std::string_view text) {
  if (text == "all") return BenchmarkSpace{};
  if (text.substr(0, 4) == "top:") {
    const std::string_view digits = text.substr(4);
    int k = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
    if (ec == std::errc() && ptr == digits.data() + digits.size() && !digits.empty() && k >= 1) return BenchmarkSpace{k};
  }
  return invalid_argument("unknown benchmark space '" + std::string(text) + "' (expected all or top:K with K >= 1)");
}

}  // namespace gemmtune
