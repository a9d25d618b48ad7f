// How a product of 10-30 ns reads by the loop that calls it: libxsmm's kernel and one of our own
// (a cpu config) as handles, and Session::gemm with the session's pick, each timed in a bare
// loop of calls (a program calling it over and over) and in the tuning harness's interleaved
// rounds (time_kernels / time_with_peers: a std::function per call), three times in one process.
//
// On the Zen 5 VM the order of the pairs kernel and libxsmm's at 8×8×8 changed with the process
// and the loop (ours 0.88-1.02× libxsmm's time in the bare loop, 0.90-1.17× in the harness), and
// Session::gemm read 1.03-1.12× its own pick's handle in the bare loop:
// bench/results/2026-12-02c-cpu-amd-zen5-tiny-shapes.md.
//
// Built with the bench targets (`tiny_call_context`). From the build folder:
//   GEMMTUNE_CACHE=off bin/tiny_call_context 8 8 8 "mm=8 mn=8 thr=1 isa=avx512 kernel=pairs"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gemmtune/session.h"
#include "gemmtune/timing.h"

using namespace gemmtune;

namespace {

// ns a call of `call` in a bare loop: the fastest of 15 loops of 100000 calls.
template <class Call>
double bare_ns(Call&& call) {
  double best = 1e30;
  for (int loop = 0; loop < 15; ++loop) {
    constexpr int kCalls = 100000;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) {
      call();
      asm volatile("" ::: "memory");  // each call's stores happen: no call is merged or dropped
    }
    const auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, ns / kCalls);
  }
  return best;
}

int fail(const Status& status) {
  std::fprintf(stderr, "tiny_call_context: %s\n", status.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: tiny_call_context M N K CPU-CONFIG   (f32 nn; libxsmm must run the shape)\n");
    return 2;
  }
  const int m = std::atoi(argv[1]), n = std::atoi(argv[2]), k = std::atoi(argv[3]);
  auto problem = Problem::create(m, n, k, DType::f32);
  if (!problem.is_ok()) return fail(problem.status());
  auto config = KernelConfig::parse(argv[4]);
  if (!config.is_ok()) return fail(config.status());
  SessionOptions options;
  auto session = Session::create(options);
  if (!session.is_ok()) return fail(session.status());
  Session& s = **session;
  auto libxsmm = s.kernel(*problem, "libxsmm", KernelConfig{});
  if (!libxsmm.is_ok()) return fail(libxsmm.status());
  auto own = s.kernel(*problem, "cpu", *config);
  if (!own.is_ok()) return fail(own.status());
  if (Status ready = s.prepare(*problem); !ready.is_ok()) return fail(ready);
  auto pick = s.pick(*problem);
  if (!pick.is_ok()) return fail(pick.status());
  auto picked = s.kernel(*problem, pick->backend, pick->config);
  if (!picked.is_ok()) return fail(picked.status());
  std::printf("%dx%dx%d f32 nn; own: cpu %s; Session::gemm's pick: %s %s\n", m, n, k, config->to_string().c_str(),
              pick->backend.c_str(), pick->config.to_string().c_str());

  std::vector<float> a(std::size_t(m) * k, 1.0f), b(std::size_t(k) * n, 1.0f), c(std::size_t(m) * n);
  auto run = [&](GemmKernel& kernel) { return [&, k = &kernel] { (void)k->run(a.data(), b.data(), c.data(), nullptr); }; };
  TimingOptions timing = options.tuning.timing;
  timing.samples = 21;
  std::printf("%-8s %28s %22s %34s\n", "", "ns: libxsmm  own  gemm", "own / libxsmm", "gemm / its pick's handle");
  for (int pass = 0; pass < 3; ++pass) {
    const double lx = bare_ns(run(**libxsmm)), mine = bare_ns(run(**own)), handle = bare_ns(run(**picked));
    const double gemm = bare_ns([&] { (void)s.gemm(*problem, a.data(), b.data(), c.data()); });
    std::printf("%-8s %12.2f %6.2f %6.2f %22.3f %34.3f\n", "bare", lx, mine, gemm, mine / lx, gemm / handle);
    // One interleaved run: Session::gemm first, then the three handles.
    auto stats = s.time_with_peers(*problem, {libxsmm->get(), own->get(), picked->get()}, timing);
    for (const auto& r : stats) {
      if (!r.is_ok()) return fail(r.status());
    }
    auto by_round = [&](int x, int y) { return median_ratio_by_round(stats[x]->sample_us, stats[y]->sample_us); };
    std::printf("%-8s %12.2f %6.2f %6.2f %22.3f %34.3f\n", "harness", stats[1]->median_us * 1e3,
                stats[2]->median_us * 1e3, stats[0]->median_us * 1e3, by_round(2, 1), by_round(0, 3));
  }
  return 0;
}
