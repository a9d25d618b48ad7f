#include "gemmtune/op.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>

#include "../tuning/autotuner.h"
#include "../tuning/session_store.h"
#include "../core/device_call_timer.h"
#include "../core/lock_free_map.h"
#include "../core/operand_grid.h"
#include "gemm_kernel_args.h"
#include "in_use_watch.h"

namespace gemmtune {

Result<Route> Route::parse(std::string_view text) {
  Route route;
  if (text == "benchmark") return route;
  if (text == "distance") {
    route.policy = RoutePolicy::distance;
    return route;
  }
  if (text == "autotune") {
    route.policy = RoutePolicy::autotune;
    return route;
  }
  if (text.rfind("fixed:", 0) == 0 && text.size() > 6 && text.size() < 12 &&
      text.substr(6).find_first_not_of("0123456789") == std::string_view::npos) {
    route.policy = RoutePolicy::fixed;
    route.fixed_index = std::stoi(std::string(text.substr(6)));
    return route;
  }
  return invalid_argument("unknown route '" + std::string(text) + "' (expected benchmark, distance, autotune or fixed:I)");
}

std::string Route::to_string() const {
  switch (policy) {
    case RoutePolicy::benchmark: return "benchmark";
    case RoutePolicy::distance: return "distance";
    case RoutePolicy::autotune: return "autotune";
    case RoutePolicy::fixed: return "fixed:" + std::to_string(fixed_index);
  }
  return "?";
}

Status ShapeRouting::validate() const {
  if (dynamic_dims.empty()) return invalid_argument("routing: dynamic_dims names none of m, n, k");
  for (std::size_t i = 0; i < dynamic_dims.size(); ++i) {
    const char d = dynamic_dims[i];
    if (d != 'm' && d != 'n' && d != 'k') {
      return invalid_argument(std::string("routing: dynamic_dims '") + dynamic_dims + "' has '" + d +
                              "' (expected letters of m, n, k)");
    }
    if (dynamic_dims.find(d, i + 1) != std::string::npos) {
      return invalid_argument("routing: dynamic_dims '" + dynamic_dims + "' repeats '" + d + "'");
    }
  }
  if (hints.empty()) return invalid_argument("routing: at least one size hint is needed");
  for (std::int64_t hint : hints) {
    if (hint < 1) return invalid_argument("routing: size hints must be >= 1 (got " + std::to_string(hint) + ")");
  }
  if (revisit_after_calls < 0) {
    return invalid_argument("routing: revisit_after_calls must be >= 0 (got " + std::to_string(revisit_after_calls) + ")");
  }
  return Status::ok();
}

std::optional<ProblemSpec> family_of(const Problem& problem, std::string_view dynamic_dims) {
  const bool m = dynamic_dims.find('m') != std::string_view::npos;
  const bool n = dynamic_dims.find('n') != std::string_view::npos;
  const bool k = dynamic_dims.find('k') != std::string_view::npos;
  ProblemSpec family = problem.spec();
  // Tight leading dims: the extent of each operand's contiguous dim (A: k row-major, m
  // column-major; B: n or k; C: n, row-major).
  const std::int64_t tight_a = problem.a_layout() == Layout::row_major ? problem.k() : problem.m();
  const std::int64_t tight_b = problem.b_layout() == Layout::row_major ? problem.n() : problem.k();
  const bool a_dynamic = m || k, b_dynamic = k || n, c_dynamic = m || n;
  if ((a_dynamic && problem.lda() != std::max<std::int64_t>(1, tight_a)) ||
      (b_dynamic && problem.ldb() != std::max<std::int64_t>(1, tight_b)) ||
      (c_dynamic && problem.ldc() != std::max<std::int64_t>(1, problem.n()))) {
    return std::nullopt;
  }
  family.lda = family.ldb = family.ldc = 0;
  if (m) family.m = kDynamic;
  if (n) family.n = kDynamic;
  if (k) family.k = kDynamic;
  return family;
}

std::vector<int> hints_by_distance(const std::vector<std::array<std::int64_t, 3>>& hint_shapes,
                                   const std::array<std::int64_t, 3>& shape) {
  auto lg = [](std::int64_t v) { return std::log2(double(std::max<std::int64_t>(1, v))); };
  // Dims of A (m, k), B (k, n) and C (m, n): inputs and output alike, as Inductor's
  // SizeHintMultiKernelCall measures them.
  constexpr int kTensorDims[6] = {0, 2, 2, 1, 0, 1};
  std::vector<double> distance(hint_shapes.size(), 0.0);
  for (std::size_t h = 0; h < hint_shapes.size(); ++h) {
    for (int d : kTensorDims) distance[h] += std::fabs(lg(hint_shapes[h][std::size_t(d)]) - lg(shape[std::size_t(d)]));
  }
  std::vector<int> order(hint_shapes.size());
  for (std::size_t h = 0; h < order.size(); ++h) order[h] = int(h);
  // Stable and with a tolerance: a tie keeps the earlier (lower-index) hint first.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return distance[std::size_t(a)] < distance[std::size_t(b)] - 1e-12;
  });
  return order;
}

int nearest_hint(const std::vector<std::array<std::int64_t, 3>>& hint_shapes, const std::array<std::int64_t, 3>& shape) {
  const std::vector<int> order = hints_by_distance(hint_shapes, shape);
  return order.empty() ? -1 : order.front();
}

struct GemmOp::Impl {
  Session& session;
  ProblemSpec family;
  GemmOpOptions options;
  std::vector<SubKernel> subs;
  std::vector<std::array<std::int64_t, 3>> hint_shapes;  // one per hint, in options order
  std::vector<int> hint_to_sub;

  // Per sub-kernel, the rounds of one interleaved timing (empty: not timed, or failed).
  using SubRounds = std::vector<std::vector<double>>;
  struct Decision {
    std::unique_ptr<GemmKernel> kernel;
    int sub = -1;
    bool checked = false;    // a stored route whose in-use check ran (it held, or was revisited)
    SubRounds rounds;        // what the benchmark policy decided on; the revisit weighs it again
    double rival_us = 0;     // the rivals' fastest round in the decision's timing (0: none)
    bool alone = false;      // no rival ran the shape: nothing to hold the route against
  };
  // A routed shape in the table. A revisit can change its kernel while other threads run it:
  // they read `active`, and every kernel it pointed to lives as long as the op.
  struct Routed {
    explicit Routed(Decision first)
        : sub(first.sub), kernels{}, first_rounds(std::move(first.rounds)), rival_us(first.rival_us) {
      kernels.push_back(std::move(first.kernel));
      active.store(kernels.back().get());
      grid_mask.store(operand_grid_mask(*kernels.back()));
    }
    std::atomic<GemmKernel*> active{nullptr};
    // The grid the active kernel's family was tuned at: a call with A or B off it runs on copies.
    // A revisit stores it after `active`, so a call between the two moves operands by the old
    // kernel's grid: never wrong (a kernel refuses what it cannot read), at most slower.
    std::atomic<std::uintptr_t> grid_mask{0};
    std::atomic<int> sub;
    std::vector<std::unique_ptr<GemmKernel>> kernels;  // the first decision's, then a revisit's
    // Calls toward the in-use check; only counted while `watched`.
    std::atomic<bool> watched{false};
    std::atomic<bool> settled{false};  // not watched, or its check (and any revisit) is done
    std::atomic<std::int64_t> calls{0};
    std::unique_ptr<InUseWatch> in_use;  // their times; null where calls cannot be timed
    // On a GPU, events around the last InUseWatch::kSlots watched calls, read at the check.
    // They live as long as the shape: another thread's watched call may still be recording.
    std::unique_ptr<DeviceCallTimer> device_timer;
    std::string store_key;  // where the route is stored; empty when it is not
    SubRounds first_rounds;  // the first decision's timing, for the revisit (empty: from the store)
    double rival_us;         // what the calls in use are held against (0: unknown)
  };
  LockFreeMap<Dims, Routed, DimsHash> table;
  std::mutex route_mutex;  // one shape routed (or revisited) at a time; readers never take it

  Impl(Session& s, const ProblemSpec& f, GemmOpOptions o) : session(s), family(f), options(std::move(o)) {}

  std::array<std::int64_t, 3> shape_for_hint(std::int64_t hint) const {
    return {family.m == kDynamic ? hint : family.m, family.n == kDynamic ? hint : family.n,
            family.k == kDynamic ? hint : family.k};
  }

  Result<Problem> problem_at(std::int64_t m, std::int64_t n, std::int64_t k) const {
    const std::array<std::int64_t, 3> given = {m, n, k};
    const std::array<std::int64_t, 3> fixed = {family.m, family.n, family.k};
    const char* names[3] = {"m", "n", "k"};
    for (int d = 0; d < 3; ++d) {
      if (fixed[std::size_t(d)] != kDynamic && given[std::size_t(d)] != fixed[std::size_t(d)]) {
        return invalid_argument(std::string(names[d]) + " is static in this op (" + std::to_string(fixed[std::size_t(d)]) +
                                "), got " + std::to_string(given[std::size_t(d)]));
      }
    }
    ProblemSpec spec = family;
    spec.m = m;
    spec.n = n;
    spec.k = k;
    return Problem::create(spec);
  }

  // A fresh tuning of the shape (Decision::sub stays -1).
  Result<Decision> tuned(const Problem& problem) {
    Decision decided;
    GEMMTUNE_ASSIGN_OR_RETURN(TuneReport report, session.tune(problem));
    const ChoiceReport* best = report.best_choice();
    GEMMTUNE_ASSIGN_OR_RETURN(decided.kernel, session.kernel(problem, best->backend, best->config));
    return decided;
  }

  // The sub-kernel for a new shape, by the op's policy; -1 means a fresh tuning.
  Result<Decision> decide(const Problem& problem) {
    Decision decided;
    const Route& route = options.route;
    if (route.policy == RoutePolicy::autotune) return tuned(problem);
    if (route.policy == RoutePolicy::fixed) {
      decided.sub = route.fixed_index;
    } else if (route.policy == RoutePolicy::distance || subs.size() == 1) {
      // The nearest hint's sub-kernel; when it cannot run this shape (a cuBLASLt heuristic
      // rank that this shape's heuristics do not reach, say), the next nearest.
      for (int hint : hints_by_distance(hint_shapes, {problem.m(), problem.n(), problem.k()})) {
        decided.sub = hint_to_sub[std::size_t(hint)];
        const SubKernel& sub = subs[std::size_t(decided.sub)];
        auto kernel = session.kernel(problem, sub.backend, sub.config);
        if (kernel.is_ok()) {
          decided.kernel = std::move(kernel).value();
          return decided;
        }
      }
      // No sub-kernel runs this shape (every hint picked a kernel made for its exact shape, a
      // tile or a libxsmm JIT kernel, say): it gets a tuning of its own.
      return tuned(problem);
    } else {
      return benchmark(problem);
    }
    const SubKernel& sub = subs[std::size_t(decided.sub)];
    GEMMTUNE_ASSIGN_OR_RETURN(decided.kernel, session.kernel(problem, sub.backend, sub.config));
    return decided;
  }

  // Per-call times of `kernels`, one sample per round of an interleaved run (a failed timing:
  // empty). A timer that reports medians alone counts as one round each.
  std::vector<std::vector<double>> time_rounds(const Problem& problem, const std::vector<GemmKernel*>& kernels,
                                               const TimingOptions& timing) {
    std::vector<Result<TimingStats>> stats =
        options.timer ? options.timer(problem, kernels) : session.time_kernels(problem, kernels, timing);
    std::vector<std::vector<double>> rounds(kernels.size());
    for (std::size_t i = 0; i < kernels.size() && i < stats.size(); ++i) {
      if (!stats[i].is_ok()) continue;
      rounds[i] = stats[i]->sample_us.empty() ? std::vector<double>{stats[i]->median_us} : stats[i]->sample_us;
    }
    return rounds;
  }

  // Times every sub-kernel that can run the shape and keeps the fastest by the tuner's own
  // final-round rule: each against the fastest round by round, those the rounds leave close
  // timed again among themselves (TuneOptions::close_band, close_repeats), the earliest within
  // the noise band. One reading of each used to decide for good: on a Zen 3 VM the hints
  // table's worst routed cell read 1.10x and 1.55x of the best in two runs (issue 34).
  //
  // A revisit passes the first decision's rounds (`earlier`) and the sub-kernel serving now
  // (`serving`). The rounds of both timings then decide together, and the serving sub-kernel
  // stays unless a rival is faster beyond the noise band. The revisit's reading alone used to
  // replace the first: on the 16-core Xeon host one timing of a 3 us product can be 3x off,
  // and a revisit moved a right route to a kernel 3.5x slower there
  // (bench/results/2026-11-29f-cpu-intel-xeon-16t.md).
  Result<Decision> benchmark(const Problem& problem, const SubRounds& earlier = {}, int serving = -1) {
    std::vector<std::unique_ptr<GemmKernel>> kernels(subs.size());
    std::vector<GemmKernel*> timed;
    std::vector<std::size_t> timed_sub;
    for (std::size_t i = 0; i < subs.size(); ++i) {
      auto kernel = session.kernel(problem, subs[i].backend, subs[i].config);
      if (!kernel.is_ok()) continue;
      kernels[i] = std::move(kernel).value();
      timed.push_back(kernels[i].get());
      timed_sub.push_back(i);
    }
    if (timed.empty()) return tuned(problem);  // as the distance route does
    const TuneOptions& tuning = session.options().tuning;
    std::vector<std::vector<double>> all_rounds = time_rounds(problem, timed, tuning.timing);
    Decision decided;
    decided.rounds.assign(subs.size(), {});
    // Only the sub-kernels whose timing ran go on.
    std::vector<std::vector<double>> rounds;
    std::vector<std::size_t> ran;  // index into timed
    for (std::size_t i = 0; i < timed.size(); ++i) {
      if (all_rounds[i].empty()) continue;
      decided.rounds[timed_sub[i]] = all_rounds[i];
      rounds.push_back(all_rounds[i]), ran.push_back(i);
    }
    if (ran.empty()) return unsupported("every sub-kernel failed on " + problem.describe());
    // The earlier rounds go first, so that round r of every sub-kernel still comes from one
    // interleaved round; only when each sub-kernel timed now has as many of them.
    const bool pool = earlier.size() == subs.size() && std::all_of(ran.begin(), ran.end(), [&](std::size_t r) {
      const std::vector<double>& before = earlier[timed_sub[r]];
      return !before.empty() && before.size() == earlier[timed_sub[ran.front()]].size();
    });
    if (pool) {
      for (std::size_t r = 0; r < ran.size(); ++r) {
        const std::vector<double>& before = earlier[timed_sub[ran[r]]];
        rounds[r].insert(rounds[r].begin(), before.begin(), before.end());
      }
    }
    const std::vector<std::size_t> close = close_finish_members(rounds, tuning.noise_band, tuning.close_band);
    if (!close.empty() && tuning.close_repeats > 0) {
      TimingOptions more = tuning.timing;
      more.samples = tuning.close_repeats * tuning.timing.samples;
      std::vector<GemmKernel*> again;
      for (std::size_t c : close) again.push_back(timed[ran[c]]);
      const std::vector<std::vector<double>> extra = time_rounds(problem, again, more);
      for (std::size_t c = 0; c < close.size(); ++c) {
        rounds[close[c]].insert(rounds[close[c]].end(), extra[c].begin(), extra[c].end());
      }
    }
    int keep = -1;  // the serving sub-kernel's index in `rounds`
    for (std::size_t r = 0; r < ran.size(); ++r) {
      if (int(timed_sub[ran[r]]) == serving) keep = int(r);
    }
    const int best = pick_by_rounds(rounds, tuning.noise_band, keep);
    if (best < 0) return unsupported("every sub-kernel failed on " + problem.describe());
    decided.sub = int(timed_sub[ran[std::size_t(best)]]);
    decided.kernel = std::move(kernels[std::size_t(decided.sub)]);
    // What the calls in use are held against: the fastest any rival ran. Against the rivals'
    // medians a route won on one disturbed reading of a close rival held in use: on the
    // Emerald Rapids VM an op kept a 100³ route 8 % slower than its rival that way.
    for (std::size_t s = 0; s < decided.rounds.size(); ++s) {
      if (int(s) == decided.sub || decided.rounds[s].empty()) continue;
      const double fastest = *std::min_element(decided.rounds[s].begin(), decided.rounds[s].end());
      if (decided.rival_us <= 0 || fastest < decided.rival_us) decided.rival_us = fastest;
    }
    decided.alone = decided.rival_us <= 0;
    return decided;
  }

  // The family's identity in route keys: dtypes, layouts, beta class and static dims.
  std::string family_key() const {
    std::string key = std::string(dtype_name(family.a_type)) + "." + std::string(dtype_name(family.c_type)) + ":" +
                      (family.a_layout == Layout::row_major ? "n" : "t") +
                      (family.b_layout == Layout::row_major ? "n" : "t") + ":";
    for (std::int64_t dim : {family.m, family.n, family.k}) key += (dim == kDynamic ? "?" : std::to_string(dim)) + "x";
    key.back() = ':';
    return key + (family.beta == 0 ? "b0" : "b1");
  }

  std::string hints_text() const {
    std::string text;
    for (std::int64_t hint : options.hints) {
      if (!text.empty()) text += ',';
      text += std::to_string(hint);
    }
    return text;
  }

  // Routes worth remembering across processes: those that cost timing or a search. Fixed
  // routes need no memory; autotuned shapes are in the store as tunings already.
  bool persists() const {
    return options.persist_routes &&
           (options.route.policy == RoutePolicy::benchmark || options.route.policy == RoutePolicy::distance);
  }

  // A stored route whose sub-kernel is still one of this op's.
  std::optional<Decision> stored_route(SessionStore& store, const std::string& key, const Problem& problem) {
    std::optional<RouteRecord> record = store.load_route(key);
    if (!record) return std::nullopt;
    for (std::size_t s = 0; s < subs.size(); ++s) {
      if (subs[s].backend != record->backend || subs[s].config != record->config) continue;
      auto kernel = session.kernel(problem, subs[s].backend, subs[s].config);
      if (!kernel.is_ok()) return std::nullopt;
      Decision decided;
      decided.sub = int(s);
      decided.kernel = std::move(kernel).value();
      decided.checked = record->revisited || record->held;
      decided.rival_us = record->rival_us;
      decided.alone = record->alone;
      return decided;
    }
    return std::nullopt;  // the op's hints picked other kernels since: route again
  }

  Result<Routed*> resolve(std::int64_t m, std::int64_t n, std::int64_t k) {
    std::lock_guard lock(route_mutex);
    if (Routed* known = table.find({m, n, k})) return known;
    GEMMTUNE_ASSIGN_OR_RETURN(Problem problem, problem_at(m, n, k));
    SessionStore* store = persists() ? session_store(session) : nullptr;
    const std::string key = store ? route_key(session.device().fingerprint(), family_key(), hints_text(),
                                              options.route.to_string(), m, n, k)
                                  : std::string();
    std::optional<Decision> decided;
    if (store) decided = stored_route(*store, key, problem);
    if (decided) {
      ++stored_routes_used;
    } else {
      GEMMTUNE_ASSIGN_OR_RETURN(Decision fresh, decide(problem));
      decided = std::move(fresh);
      if (store && decided->sub >= 0) {
        RouteRecord record{subs[std::size_t(decided->sub)].backend, subs[std::size_t(decided->sub)].config};
        record.rival_us = decided->rival_us;
        record.alone = decided->alone;
        store->save_route(key, record);
      }
    }
    // A route no rival could run is not watched: its revisit would time the one kernel again.
    const bool watch = options.route.policy == RoutePolicy::benchmark && options.revisit_after_calls > 0 &&
                       subs.size() > 1 && decided->sub >= 0 && !decided->checked && !decided->alone;
    if (decided->alone) ++alone;
    auto routed = std::make_unique<Routed>(std::move(*decided));
    routed->store_key = key;
    if (watch) watch_in_use(*routed);
    routed->watched.store(watch, std::memory_order_relaxed);
    routed->settled.store(!watch, std::memory_order_release);
    return table.insert({m, n, k}, std::move(routed));
  }

  // How a watched shape's calls are timed. The host's clock times a CPU call. A CUDA call only
  // enqueues, so the host's clock would time the launch: events on the caller's stream bracket
  // the kernel instead. Where they cannot be made, the route is revisited unchecked.
  void watch_in_use(Routed& routed) {
    routed.in_use = std::make_unique<InUseWatch>(options.revisit_after_calls);
    if (session.device().kind == DeviceKind::cpu) return;
    auto timer = create_device_call_timer(session.device(), options.revisit_after_calls - first_device_timed_call());
    if (!timer.is_ok()) {
      routed.in_use.reset();
      return;
    }
    routed.device_timer = std::move(*timer);
  }

  // The device timer brackets the last InUseWatch::kSlots watched calls (all, when fewer).
  std::int64_t first_device_timed_call() const {
    return options.revisit_after_calls - std::min(options.revisit_after_calls, InUseWatch::kSlots);
  }

  // A call of a watched shape: timed, and the revisit_after_calls-th checks the route.
  Status run_watched(Routed& routed, std::int64_t m, std::int64_t n, std::int64_t k, const GemmArgs& args) {
    const std::int64_t call = routed.calls.fetch_add(1, std::memory_order_relaxed);
    GemmKernel* kernel = routed.active.load(std::memory_order_acquire);
    if (call >= options.revisit_after_calls) return run_with_args(*kernel, args);  // checked by another call
    Status status = Status::ok();
    if (routed.device_timer) {
      const std::int64_t slot = call - first_device_timed_call();  // < 0: before the timed calls
      routed.device_timer->begin(slot, args.stream);
      status = run_with_args(*kernel, args);
      if (status.is_ok()) routed.device_timer->end(slot, args.stream);
    } else {
      const auto start = std::chrono::steady_clock::now();
      status = run_with_args(*kernel, args);
      if (routed.in_use && status.is_ok()) routed.in_use->record(call, std::chrono::steady_clock::now() - start);
    }
    if (call + 1 == options.revisit_after_calls) check_in_use(routed, m, n, k);
    return status;
  }

  // A call with A or B off the grid of the kernel that serves its shape.
  [[gnu::noinline]] Status run_off_grid(Routed& routed, std::int64_t m, std::int64_t n, std::int64_t k,
                                        const GemmArgs& args) {
    GEMMTUNE_ASSIGN_OR_RETURN(Problem problem, problem_at(m, n, k));
    return gemmtune::run_off_grid(session, problem, args, routed.grid_mask.load(std::memory_order_relaxed),
                                  [&](const GemmArgs& moved) {
                                    return routed.watched.load(std::memory_order_relaxed)
                                               ? run_watched(routed, m, n, k, moved)
                                               : run_with_args(*routed.active.load(std::memory_order_acquire), moved);
                                  });
  }

  // A call of the sub-kernel; one it refuses where an operand lies (C off TMA's grid, for
  // cutlass) runs on a kernel that reads any address. One Status on every path, built in the
  // caller's place (a second one cost nanoseconds a call).
  Status run_checked(GemmKernel& kernel, std::int64_t m, std::int64_t n, std::int64_t k, const GemmArgs& args) {
    Status status = kernel.run(args.a, args.b, args.c, args.stream);
    if (status.code() == ErrorCode::unsupported) [[unlikely]] status = run_refused(m, n, k, args, status);
    return status;
  }
  Status run_watched_checked(Routed& routed, std::int64_t m, std::int64_t n, std::int64_t k, const GemmArgs& args) {
    Status status = run_watched(routed, m, n, k, args);
    if (status.code() == ErrorCode::unsupported) [[unlikely]] status = run_refused(m, n, k, args, status);
    return status;
  }

  // A call the sub-kernel refused, run on a kernel that reads any address.
  [[gnu::noinline]] Status run_refused(std::int64_t m, std::int64_t n, std::int64_t k, const GemmArgs& args,
                                       const Status& refused) {
    GEMMTUNE_ASSIGN_OR_RETURN(Problem problem, problem_at(m, n, k));
    return run_at_any_address(session, problem, args.a, args.b, args.c, args.stream, refused);
  }

  // The device's times of the watched calls, into the watch (waits for the device to run them).
  static void read_device_times(Routed& routed) {
    if (!routed.device_timer || !routed.in_use) return;
    for (std::int64_t slot = 0; slot < InUseWatch::kSlots; ++slot) {
      if (const std::int64_t ns = routed.device_timer->elapsed_ns(slot); ns > 0) {
        routed.in_use->record(slot, std::chrono::nanoseconds(ns));
      }
    }
  }

  // Writes the route's record with what the in-use check found.
  void store_checked(const Routed& routed, int sub, bool was_revisited) {
    SessionStore* store = persists() ? session_store(session) : nullptr;
    if (store == nullptr || routed.store_key.empty()) return;
    RouteRecord record{subs[std::size_t(sub)].backend, subs[std::size_t(sub)].config};
    record.revisited = was_revisited;
    record.held = !was_revisited;
    record.rival_us = routed.rival_us;
    store->save_route(routed.store_key, record);
  }

  // Holds the route when its calls in use ran no slower than any rival did when it
  // was decided; else routes the shape once more.
  void check_in_use(Routed& routed, std::int64_t m, std::int64_t n, std::int64_t k) {
    routed.watched.store(false, std::memory_order_relaxed);
    std::lock_guard lock(route_mutex);
    struct SettleOnExit {
      std::atomic<bool>& settled;
      ~SettleOnExit() { settled.store(true, std::memory_order_release); }
    } settle{routed.settled};
    const double noise_band = session.options().tuning.noise_band;
    read_device_times(routed);
    if (routed.in_use && !InUseWatch::slower_than_rival(routed.in_use->median_us(), routed.rival_us, noise_band)) {
      routed.first_rounds.clear();
      ++held;
      store_checked(routed, routed.sub.load(), false);
      return;
    }
    auto problem = problem_at(m, n, k);
    if (!problem.is_ok()) return;
    // A revisit that cannot time keeps the route it has.
    Result<Decision> again = benchmark(*problem, routed.first_rounds, routed.sub.load());
    routed.first_rounds.clear();  // never read again: the revisit is the last decision
    if (!again.is_ok() || again->sub < 0) return;
    ++revisited;
    const int sub = again->sub;
    if (sub != routed.sub.load()) {
      ++changed_on_revisit;
      routed.kernels.push_back(std::move(again->kernel));
      routed.active.store(routed.kernels.back().get(), std::memory_order_release);
      routed.grid_mask.store(operand_grid_mask(*routed.kernels.back()));
      routed.sub.store(sub);
    }
    store_checked(routed, sub, true);
  }

  // Shapes routed from the store rather than decided here, and the in-use checks: revisits,
  // the changes among them, routes that held, and routes no rival could run (for tests and
  // reports).
  std::int64_t stored_routes_used = 0;
  std::atomic<std::int64_t> alone{0};  // read by routes_alone() while other threads route
  std::atomic<std::int64_t> revisited{0};
  std::atomic<std::int64_t> changed_on_revisit{0};
  std::atomic<std::int64_t> held{0};
};

GemmOp::GemmOp(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GemmOp::~GemmOp() = default;

Result<std::unique_ptr<GemmOp>> GemmOp::create(Session& session, const ProblemSpec& family, GemmOpOptions options) {
  if (options.hints.empty()) return invalid_argument("a GemmOp needs at least one size hint");
  if (options.revisit_after_calls < 0) {
    return invalid_argument("revisit_after_calls must be >= 0 (got " + std::to_string(options.revisit_after_calls) + ")");
  }
  for (std::int64_t hint : options.hints) {
    if (hint < 1) return invalid_argument("size hints must be >= 1 (got " + std::to_string(hint) + ")");
  }
  for (std::int64_t dim : {family.m, family.n, family.k}) {
    if (dim < 0 && dim != kDynamic) return invalid_argument("dims must be >= 0 or kDynamic");
  }
  const bool any_dynamic = family.m == kDynamic || family.n == kDynamic || family.k == kDynamic;
  if (any_dynamic && (family.lda != 0 || family.ldb != 0 || family.ldc != 0)) {
    return invalid_argument("an op with dynamic dims takes tight operands (lda = ldb = ldc = 0)");
  }
  auto impl = std::make_unique<Impl>(session, family, options);
  for (std::int64_t hint : options.hints) {
    const auto shape = impl->shape_for_hint(hint);
    GEMMTUNE_ASSIGN_OR_RETURN(Problem problem, impl->problem_at(shape[0], shape[1], shape[2]));
    // The stored pick when there is one: a new process builds the same op without re-tuning.
    GEMMTUNE_ASSIGN_OR_RETURN(TuneReport report, session.tune_or_load(problem));
    const ChoiceReport* best = report.best_choice();
    int index = -1;
    for (std::size_t s = 0; s < impl->subs.size(); ++s) {
      if (impl->subs[s].backend == best->backend && impl->subs[s].config == best->config) index = int(s);
    }
    if (index < 0) {
      // Identical picks collapse into one sub-kernel.
      index = int(impl->subs.size());
      impl->subs.push_back({best->backend, best->config, {}});
    }
    impl->subs[std::size_t(index)].hints.push_back(hint);
    impl->hint_shapes.push_back(shape);
    impl->hint_to_sub.push_back(index);
  }
  if (options.route.policy == RoutePolicy::fixed &&
      (options.route.fixed_index < 0 || std::size_t(options.route.fixed_index) >= impl->subs.size())) {
    return invalid_argument("route fixed:" + std::to_string(options.route.fixed_index) + " but the op has " +
                            std::to_string(impl->subs.size()) + " sub-kernel(s)");
  }
  return std::unique_ptr<GemmOp>(new GemmOp(std::move(impl)));
}

Status GemmOp::run(std::int64_t m, std::int64_t n, std::int64_t k, const void* a, const void* b, void* c,
                   void* stream) {
  Impl::Routed* routed = impl_->table.find({m, n, k});
  if (routed == nullptr) {
    GEMMTUNE_ASSIGN_OR_RETURN(routed, impl_->resolve(m, n, k));
  }
  // A or B off the grid the sub-kernel's family was tuned at: copied onto it, as Session::gemm
  // does (two ANDs a call).
  if (off_grid(a, b, routed->grid_mask.load(std::memory_order_relaxed))) [[unlikely]] {
    return impl_->run_off_grid(*routed, m, n, k, {a, b, c, stream});
  }
  if (routed->watched.load(std::memory_order_relaxed)) {
    return impl_->run_watched_checked(*routed, m, n, k, {a, b, c, stream});
  }
  return impl_->run_checked(*routed->active.load(std::memory_order_acquire), m, n, k, {a, b, c, stream});
}

Result<int> GemmOp::route(std::int64_t m, std::int64_t n, std::int64_t k) {
  Impl::Routed* routed = impl_->table.find({m, n, k});
  if (routed == nullptr) {
    GEMMTUNE_ASSIGN_OR_RETURN(routed, impl_->resolve(m, n, k));
  }
  return routed->sub.load();
}

const std::vector<SubKernel>& GemmOp::sub_kernels() const { return impl_->subs; }
std::int64_t GemmOp::routes_from_store() const { return impl_->stored_routes_used; }
std::int64_t GemmOp::routes_revisited() const { return impl_->revisited; }
std::int64_t GemmOp::routes_changed_on_revisit() const { return impl_->changed_on_revisit; }
std::int64_t GemmOp::routes_held_in_use() const { return impl_->held; }
std::int64_t GemmOp::routes_alone() const { return impl_->alone; }
bool GemmOp::route_settled(std::int64_t m, std::int64_t n, std::int64_t k) const {
  const Impl::Routed* routed = impl_->table.find({m, n, k});
  return routed != nullptr && routed->settled.load(std::memory_order_acquire);
}
const Route& GemmOp::policy() const { return impl_->options.route; }
Result<Problem> GemmOp::problem_at(std::int64_t m, std::int64_t n, std::int64_t k) const {
  return impl_->problem_at(m, n, k);
}

}  // namespace gemmtune
