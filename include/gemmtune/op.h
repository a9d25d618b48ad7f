// Multi-kernel operators for dynamic shapes (Inductor's multi-kernel matmuls across size
// hints). A GemmOp is built for a problem family in which some of m, n, k are dynamic: for each
// size hint a full tuning picks a sub-kernel; at run time each new shape is routed to one of
// them (or tuned), remembered, and every later call of that shape dispatches through a
// lock-free table.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/problem.h"
#include "gemmtune/route.h"
#include "gemmtune/session.h"
#include "gemmtune/status.h"

namespace gemmtune {

// Marks a dim of a family as dynamic.
inline constexpr std::int64_t kDynamic = -1;

struct GemmOpOptions {
  std::vector<std::int64_t> hints = {64, 256, 4096};
  Route route;
  // Routes are also written to the session's tuning store (when it has one), so another
  // process routes known shapes without timing again.
  bool persist_routes = true;
  // A shape the benchmark policy routed (here or in another process, from the store) is
  // checked in use: its first revisit_after_calls calls are timed as the program makes them
  // (two clock reads each; later calls are not timed). When their median is slower than the
  // fastest round of any rival in the route's decision, beyond the noise band, the shape is routed
  // once more: its sub-kernels timed again, in fresh interleaved rounds, weighed by the same
  // rule together with the rounds the first decision read (where it was made in this process),
  // and a rival serves from then on only where it is faster beyond the noise band. One reading
  // of the timings otherwise decides a hot shape for good. Either outcome (held or revisited)
  // is recorded with the route in the store, so no process repeats the check. On a CUDA device
  // a call only enqueues the kernel, so the host's clock cannot time it: a pair of CUDA events
  // on the call's stream brackets each of the last 64 watched calls instead (1.8-2.5 us of host
  // time per call on an H200's host), and the check waits once for the device to have run them.
  // An event's interval also counts a stream left idle while the host launched, so a GPU check
  // errs toward revisiting, never toward holding: products of a few microseconds, which the
  // host launches slower than the GPU runs them, are revisited. A call on a stream being
  // captured into a graph is not timed. A route that no rival could run when it was decided is
  // not checked (routes_alone). 0: never.
  std::int64_t revisit_after_calls = 64;
  // How the benchmark policy times sub-kernels on a new shape; empty means
  // Session::time_kernels with the session's timing options. Tests inject timings here.
  std::function<std::vector<Result<TimingStats>>(const Problem&, const std::vector<GemmKernel*>&)> timer;
};

// One distinct pick among the hints.
struct SubKernel {
  std::string backend;
  KernelConfig config;
  std::vector<std::int64_t> hints;  // the hints that picked it
};

class GemmOp {
 public:
  // `family`: a ProblemSpec whose dynamic dims are kDynamic; leading dimensions of operands
  // with a dynamic extent must be 0 (tight). Tunes every hint now.
  static Result<std::unique_ptr<GemmOp>> create(Session& session, const ProblemSpec& family,
                                                GemmOpOptions options = {});
  ~GemmOp();
  GemmOp(const GemmOp&) = delete;
  GemmOp& operator=(const GemmOp&) = delete;

  // C = alpha·A·B + beta·C at the given dims (static dims must equal the family's). The first
  // call of a shape routes it; later calls are a lock-free lookup and the kernel.
  Status run(std::int64_t m, std::int64_t n, std::int64_t k, const void* a, const void* b, void* c,
             void* stream = nullptr);

  // Routes the shape now (as the first run() would) and tells which sub-kernel serves it:
  // its index in sub_kernels(), or -1 when the route is a fresh tuning (autotune policy).
  Result<int> route(std::int64_t m, std::int64_t n, std::int64_t k);

  const std::vector<SubKernel>& sub_kernels() const;
  // How many shapes this op routed from the tuning store instead of deciding them itself.
  std::int64_t routes_from_store() const;
  // How many routed shapes were revisited (GemmOpOptions::revisit_after_calls), and how many of
  // those changed sub-kernel; how many held in use, their calls no slower than the rival.
  std::int64_t routes_revisited() const;
  std::int64_t routes_changed_on_revisit() const;
  std::int64_t routes_held_in_use() const;
  // How many routed shapes no rival sub-kernel could run when routed: not checked in use.
  std::int64_t routes_alone() const;
  // Whether a shape this op routed will keep its sub-kernel: it is not checked in use, or its
  // check (and the revisit that may follow) is done. False for a shape not routed yet.
  bool route_settled(std::int64_t m, std::int64_t n, std::int64_t k) const;
  const Route& policy() const;
  // The family's problem at concrete dims.
  Result<Problem> problem_at(std::int64_t m, std::int64_t n, std::int64_t k) const;

 private:
  struct Impl;
  explicit GemmOp(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The distance rule on its own (for tests and tools): the index of the hint shape nearest to
// `shape` by sum over the dims of A (m, k), B (k, n) and C (m, n) of |log2 hint − log2 actual|
// (dims below 1 count as 1). Ties go to the lowest index, the smallest hint as listed.
int nearest_hint(const std::vector<std::array<std::int64_t, 3>>& hint_shapes, const std::array<std::int64_t, 3>& shape);
// Every hint, nearest first by the same distance; ties keep the lower index first. The distance
// route falls back along this order when a nearer sub-kernel cannot run the shape.
// The family a problem belongs to when `dynamic_dims` (letters of "mnk") vary: its spec with
// those dims set to kDynamic. nullopt when an operand spanning a dynamic dim has a padded
// leading dimension (an op's operands are tight).
std::optional<ProblemSpec> family_of(const Problem& problem, std::string_view dynamic_dims);

std::vector<int> hints_by_distance(const std::vector<std::array<std::int64_t, 3>>& hint_shapes,
                                   const std::array<std::int64_t, 3>& shape);

}  // namespace gemmtune
