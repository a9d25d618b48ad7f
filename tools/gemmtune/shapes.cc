#include "shapes.h"

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

namespace gemmtune::cli {
namespace {

// A uniform double in [0, 1) from the generator's bits: std::uniform_real_distribution differs
// between standard libraries, and a random set must be the same everywhere.
double unit(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

std::int64_t log_uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::int64_t(std::llround(std::exp2(std::log2(lo) + unit(rng) * (std::log2(hi) - std::log2(lo)))));
}

Result<std::vector<Shape>> random_set(const std::string& name, double max_flops) {
  // "random:COUNT:SEED"
  const std::size_t second = name.find(':', 7);
  int count = 0;
  std::uint64_t seed = 0;
  try {
    std::size_t used = 0;
    count = std::stoi(name.substr(7, second - 7), &used);
    if (used != second - 7 || second == std::string::npos) throw std::invalid_argument("count");
    seed = std::stoull(name.substr(second + 1), &used);
    if (used != name.size() - second - 1) throw std::invalid_argument("seed");
  } catch (const std::exception&) {
    return invalid_argument("--shapes: '" + name + "' is not random:COUNT:SEED");
  }
  if (count < 1 || count > 100000) return invalid_argument("--shapes: random COUNT must be in [1, 100000]");
  return random_shapes(count, seed, max_flops);
}

}  // namespace

std::vector<Shape> random_shapes(int count, std::uint64_t seed, double max_flops) {
  std::mt19937_64 rng(seed);
  std::vector<Shape> shapes;
  while (int(shapes.size()) < count) {
    Shape s{};
    switch (rng() % 3) {
      case 0: s = {log_uniform(rng, 1, 64), log_uniform(rng, 1, 64), log_uniform(rng, 1, 64)}; break;
      case 1: s = {log_uniform(rng, 16, 1024), log_uniform(rng, 16, 1024), log_uniform(rng, 16, 1024)}; break;
      default: s = {log_uniform(rng, 1, 512), log_uniform(rng, 1024, 4096), log_uniform(rng, 1024, 4096)}; break;
    }
    if (rng() % 2 == 0) {
      for (std::int64_t* dim : {&s.m, &s.n, &s.k}) {
        if (*dim >= 8) *dim = *dim / 8 * 8;
      }
    }
    if (max_flops > 0 && 2.0 * double(s.m) * double(s.n) * double(s.k) > max_flops) continue;
    shapes.push_back(s);
  }
  return shapes;
}

Result<std::vector<Shape>> shape_set(const std::string& name, std::int64_t max_llm_m, std::int64_t max_square,
                                     double max_flops) {
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
  } else if (name.rfind("random:", 0) == 0) {
    return random_set(name, max_flops);
  } else {
    std::ifstream in(name);
    if (!in) return invalid_argument("--shapes: '" + name + "' is not small, skinny, llm, square, random:COUNT:SEED or a readable file");
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

std::vector<OptionSpec> shape_options() {
  return {
      {"dtype", true, "--dtype T              f32 | f16 | bf16 | s8; default f32"},
      {"shapes", true, "--shapes S             small | skinny | llm | square | random:COUNT:SEED | FILE of 'M N K'\n"
                       "                       lines (required)"},
      {"layout", true, "--layout L             nn | nt | tn | tt; default nt for llm and skinny (C = A·Wᵀ), else nn"},
      {"max-m", true, "--max-m M              llm set: largest M (default 256 on the CPU, 8192 on a GPU)"},
      {"max-square", true, "--max-square S         square set: largest size (default 2048 on the CPU, 4096 on a GPU)"},
      {"max-flops", true, "--max-flops F          random sets: only shapes of at most F flops (2·m·n·k)"},
  };
}

Result<ShapeSelection> shapes_from(const Args& args, bool gpu) {
  ShapeSelection out;
  if (!args.has("shapes")) return invalid_argument("--shapes is required (small, skinny, llm, square, random:COUNT:SEED or a file)");
  auto dtype = parse_dtype(args.get("dtype", "f32"));
  if (!dtype.is_ok()) return invalid_argument("--dtype: " + dtype.status().message());
  out.dtype = *dtype;
  out.set = args.get("shapes", "");
  out.layout = args.get("layout", out.set == "llm" || out.set == "skinny" ? "nt" : "nn");
  // A 2-core CPU spends minutes on what a GPU does in milliseconds: smaller default sets.
  GEMMTUNE_ASSIGN_OR_RETURN(std::int64_t max_m, args.get_int("max-m", gpu ? 8192 : 256, 1));
  GEMMTUNE_ASSIGN_OR_RETURN(std::int64_t max_square, args.get_int("max-square", gpu ? 4096 : 2048, 1));
  GEMMTUNE_ASSIGN_OR_RETURN(double max_flops, args.get_double("max-flops", 0));
  if (max_flops < 0) return invalid_argument("--max-flops must be >= 0");
  GEMMTUNE_ASSIGN_OR_RETURN(std::vector<Shape> shapes, shape_set(out.set, max_m, max_square, max_flops));
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Shape& s = shapes[i];
    auto problem = Problem::create(s.m, s.n, s.k, out.dtype, out.layout);
    if (!problem.is_ok()) return invalid_argument("shape " + std::to_string(i + 1) + ": " + problem.status().message());
    out.problems.push_back(*problem);
  }
  return out;
}

}  // namespace gemmtune::cli
