// Host cost of the BLAS drop-in on a known shape: sgemm_ and row-major cblas_sgemm through
// libgemmtune_blas.so.3 against Session::gemm of the same problem in this process, both running
// the same kernel (the drop-in's session takes the pick this program's session stored). An 8×8×8
// f32 product, so the kernel itself costs little. The difference of the medians is what the
// drop-in adds: its checks, the problem it builds and its counters (target: under 1 µs).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>

#include "blas/blas_exports.h"
#include "gemmtune/session.h"

namespace {

using namespace gemmtune;

constexpr int kSize = 8;

struct Fixture {
  std::unique_ptr<Session> session;
  // The drop-in computes column-major C = A·B as row-major Cᵀ = Bᵀ·Aᵀ: this problem, with B first.
  Problem problem = *Problem::create(kSize, kSize, kSize, DType::f32, "nn");
  float a[kSize * kSize], b[kSize * kSize], c[kSize * kSize] = {};

  Fixture() {
    for (int i = 0; i < kSize * kSize; ++i) a[i] = b[i] = float(i % 5);
    // One store for both sessions, in a scratch file.
    const std::string store = (std::filesystem::temp_directory_path() /
                               ("gemmtune-blas-bench-" + std::to_string(getpid()) + ".sqlite")).string();
    setenv("GEMMTUNE_CACHE", store.c_str(), 1);
    setenv("GEMMTUNE_BLAS_TUNING", "default", 1);
    session = std::move(Session::create().value());
    (void)session->prepare(problem);
    const float one = 1.0f, zero = 0.0f;
    const int n = kSize;
    sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);  // the drop-in loads the pick
    std::filesystem::remove(store);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void BM_SessionGemmOfAKnownProblem(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(f.session->gemm(f.problem, f.b, f.a, f.c));
}

void BM_SgemmThroughTheDropIn(benchmark::State& state) {
  Fixture& f = fixture();
  const float one = 1.0f, zero = 0.0f;
  const int n = kSize;
  for (auto _ : state) {
    sgemm_("N", "N", &n, &n, &n, &one, f.a, &n, f.b, &n, &zero, f.c, &n, 1, 1);
    benchmark::ClobberMemory();
  }
}

void BM_RowMajorCblasSgemmThroughTheDropIn(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) {
    cblas_sgemm(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, kSize, kSize, kSize, 1.0f, f.b, kSize, f.a, kSize,
                0.0f, f.c, kSize);
    benchmark::ClobberMemory();
  }
}

BENCHMARK(BM_SessionGemmOfAKnownProblem)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_SgemmThroughTheDropIn)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_RowMajorCblasSgemmThroughTheDropIn)->Repetitions(9)->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
