// The shape sets of shared/benchmarking.md, random sets for sweeps, and shape files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "args.h"
#include "gemmtune/problem.h"
#include "gemmtune/status.h"

namespace gemmtune::cli {

struct Shape {
  std::int64_t m, n, k;
};

// "small", "skinny" (M 1, 4, 16 against N = K = 4096), "llm" (M up to max_llm_m), "square" (up to max_square), "random:COUNT:SEED" (see
// random_shapes), or a file of "M N K" lines ('#' starts a comment).
Result<std::vector<Shape>> shape_set(const std::string& name, std::int64_t max_llm_m, std::int64_t max_square,
                                     double max_flops = 0);

// COUNT shapes drawn from SEED, the same on every machine: a third small (dims 1-64), a third
// medium (16-1024), a third linear-layer-like (m 1-512; n, k of 1024-4096); dims log-uniform,
// half of them rounded to multiples of 8; shapes over max_flops (2·m·n·k; 0: no limit) are
// drawn again. A shape may come twice (a sweep measures it once).
std::vector<Shape> random_shapes(int count, std::uint64_t seed, double max_flops);

// --dtype, --shapes, --layout, --max-m, --max-square, --max-flops: a set of problems.
std::vector<OptionSpec> shape_options();
struct ShapeSelection {
  std::string set;     // --shapes
  std::string layout;  // --layout, or its default for the set
  DType dtype = DType::f32;
  std::vector<Problem> problems;
};
// `gpu` picks the defaults of --max-m and --max-square (larger on a GPU).
Result<ShapeSelection> shapes_from(const Args& args, bool gpu);

}  // namespace gemmtune::cli
