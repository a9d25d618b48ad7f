#include "shapes.h"

#include <fstream>
#include <sstream>

namespace gemmtune::cli {

Result<std::vector<Shape>> shape_set(const std::string& name, std::int64_t max_llm_m, std::int64_t max_square) {
  std::vector<Shape> shapes;
  if (name == "small") {
    // All dims ≤ 64, odd ones included: where call overhead, not arithmetic, decides.
    shapes = {{8, 8, 8},    {16, 16, 16}, {17, 33, 65}, {3, 50, 7},   {32, 32, 32},
              {1, 64, 64},  {64, 1, 64},  {13, 7, 29},  {48, 48, 48}, {64, 64, 64}};
  } else if (name == "skinny") {
    // A few rows against a 4096 × 4096 weight: where streaming the weight at memory speed is
    // the whole game.
    for (std::int64_t m : {1, 4, 16}) shapes.push_back({m, 4096, 4096});
  } else if (name == "llm") {
    const std::int64_t ms[] = {1, 8, 16, 32, 64, 100, 128, 256, 300, 512, 1000, 1024, 2048, 3000, 4096, 8192};
    const std::pair<std::int64_t, std::int64_t> nks[] = {{4096, 4096}, {14336, 4096}, {4096, 14336}, {6144, 4096}};
    for (auto [n, k] : nks) {
      for (std::int64_t m : ms) {
        if (m <= max_llm_m) shapes.push_back({m, n, k});
      }
    }
  } else if (name == "square") {
    for (std::int64_t s : {512, 1024, 2048, 4096}) {
      if (s <= max_square) shapes.push_back({s, s, s});
    }
  } else {
    std::ifstream in(name);
    if (!in) return invalid_argument("--shapes: '" + name + "' is not small, skinny, llm, square or a readable file");
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      std::istringstream fields(line);
      Shape s{};
      if (!(fields >> s.m)) continue;  // blank or comment line
      std::string extra;
      if (!(fields >> s.n >> s.k) || (fields >> extra) || s.m < 0 || s.n < 0 || s.k < 0) {
        return invalid_argument(name + ":" + std::to_string(number) + ": expected three non-negative integers 'M N K'");
      }
      shapes.push_back(s);
    }
    if (shapes.empty()) return invalid_argument(name + ": no shapes in file");
  }
  return shapes;
}

}  // namespace gemmtune::cli
