// How a shape seen for the first time finds its kernel: the routing policies of multi-kernel
// ops (op.h), and the session option that applies them to Session::gemm.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/status.h"

namespace gemmtune {

enum class RoutePolicy {
  benchmark,  // time every sub-kernel on the new shape, keep the fastest
  distance,   // the sub-kernel whose hint shape is nearest in log2 distance; no timing
  autotune,   // a full tuning of the new shape
  fixed,      // always sub-kernel `fixed_index` (for performance testing)
};

struct Route {
  RoutePolicy policy = RoutePolicy::benchmark;
  int fixed_index = 0;
  // "benchmark", "distance", "autotune", "fixed:I"
  static Result<Route> parse(std::string_view text);
  std::string to_string() const;
};

// What Session::gemm does with a shape it has not met. With the autotune route (the default)
// every new shape is tuned in full. With another route, problems that differ only in the
// dynamic dims form a family: its first shape builds a GemmOp for the family (one tuning per
// hint, or the stored picks) and every new shape of it is routed to one of the op's
// sub-kernels, as an explicit GemmOp would route it; the route is remembered like any pick.
// A shape the benchmark policy routed runs through the family's op, whose in-use check may
// route it again (revisit_after_calls); Session::pick then names the sub-kernel serving now.
struct ShapeRouting {
  Route route{RoutePolicy::autotune, 0};
  // Which of m, n, k vary at run time: "m" (a batch or sequence length), "mn", "mnk", ...
  std::string dynamic_dims = "m";
  std::vector<std::int64_t> hints = {64, 256, 4096};
  // The benchmark route's in-use check (GemmOpOptions::revisit_after_calls): a routed shape's
  // first calls through Session::gemm are timed, and it is routed again where they ran slower
  // than a rival did. 0: never.
  std::int64_t revisit_after_calls = 64;

  // Ok, or what is wrong with the fields (an unknown dim letter, no hints, a hint below 1).
  Status validate() const;
};

}  // namespace gemmtune
