// Host cost of dispatching a known shape: GemmOp::run and Session::gemm against calling the same
// kernel directly, on a 1×1×1 f32 product so the kernel itself costs little, and Session::gemm
// of a shape its routing placed (SessionOptions::routing, benchmark route: through the
// family's op). The difference of the medians is the dispatch overhead (target: under 100 ns on
// the development CPU).
#include <benchmark/benchmark.h>

#include <memory>

#include "gemmtune/op.h"

namespace {

using namespace gemmtune;

struct Fixture {
  std::unique_ptr<Session> session;
  std::unique_ptr<GemmOp> op;
  std::unique_ptr<GemmKernel> direct;
  std::unique_ptr<Session> routing;  // routes m = 2 between the kernels of hints 1 and 4
  std::unique_ptr<Session> unchecked;  // the same, its in-use check off: the kernel installed itself
  Problem problem = *Problem::create(1, 1, 1, DType::f32);
  Problem routed = *Problem::create(2, 1, 1, DType::f32);
  float a2[2] = {1, 1}, c2[2] = {0, 0};
  float a = 1, b = 2, c = 0;

  Fixture() {
    SessionOptions options;
    options.tuning.timing.samples = 3;
    options.tuning.timing.min_sample_ms = 0.2;
    session = std::move(Session::create(options).value());
    ProblemSpec family;
    family.m = kDynamic;
    family.n = family.k = 1;
    GemmOpOptions op_options;
    op_options.hints = {1};
    op = std::move(GemmOp::create(*session, family, op_options).value());
    (void)op->route(1, 1, 1);
    (void)session->prepare(problem);
    const PickInfo pick = session->pick(problem).value();
    direct = std::move(session->kernel(problem, pick.backend, pick.config).value());
    options.routing.route = *Route::parse("benchmark");
    options.routing.hints = {1, 4};
    routing = std::move(Session::create(options).value());
    options.routing.revisit_after_calls = 0;
    unchecked = std::move(Session::create(options).value());
    // Past the in-use check's calls: what every later call costs.
    for (int call = 0; call < 100; ++call) (void)routing->gemm(routed, a2, &b, c2);
    (void)unchecked->gemm(routed, a2, &b, c2);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void BM_KernelCalledDirectly(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(f.direct->run(&f.a, &f.b, &f.c));
}

void BM_GemmOpDispatchOfAKnownShape(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(f.op->run(1, 1, 1, &f.a, &f.b, &f.c));
}

void BM_SessionGemmOfAKnownProblem(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(f.session->gemm(f.problem, &f.a, &f.b, &f.c));
}

void BM_SessionGemmOfARoutedProblem(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(f.routing->gemm(f.routed, f.a2, &f.b, f.c2));
}

void BM_SessionGemmOfARoutedProblemUnchecked(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(f.unchecked->gemm(f.routed, f.a2, &f.b, f.c2));
}

BENCHMARK(BM_KernelCalledDirectly)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_GemmOpDispatchOfAKnownShape)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_SessionGemmOfAKnownProblem)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_SessionGemmOfARoutedProblem)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_SessionGemmOfARoutedProblemUnchecked)->Repetitions(9)->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
