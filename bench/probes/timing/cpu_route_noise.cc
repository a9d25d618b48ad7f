// Does the benchmark route's timing read sub-kernels as they run in use? A multi-kernel op of
// square f32 nn products is made with the given hints (each tuned, or loaded from the store);
// at SIZE³ its sub-kernels are then timed REPS times as the route times them (all of them
// interleaved in one run, the session's timing options), and each alone, as a program that
// calls the routed kernel over and over runs it. Per run it prints each sub-kernel's median
// and its round-by-round ratio to sub-kernel 0, and which one the run reads fastest; then each
// sub-kernel's times alone. On the 16-core Xeon host the route at 64³ went 3x wrong in some
// hint tables (bench/results/2026-11-29f-cpu-intel-xeon-16t.md): this shows whether the
// interleaved reading itself is off there, or only scatters.
//
// Built with the bench targets (`cpu_route_noise`). From the build folder:
//   bin/cpu_route_noise 64 64,256,1024 20
//   cpu_route_noise SIZE HINTS REPS     (the session's store as gemmtune's: GEMMTUNE_CACHE)
//   ROUTE_CONFIGS="cpu:CONFIG;onednn:"  more kernels timed beside the sub-kernels
//   ROUTE_QUIET_MS=200                  the timer's quiet wait (TimingOptions::quiet_wait_ms)
// Results: bench/results/2026-11-29g-cpu-routes.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gemmtune/op.h"
#include "gemmtune/session.h"

using namespace gemmtune;

namespace {

std::vector<std::int64_t> parse_hints(const std::string& text) {
  std::vector<std::int64_t> hints;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) hints.push_back(std::atoll(item.c_str()));
  return hints;
}

// The index of the lowest ratio to sub-kernel 0 (itself 1).
std::size_t fastest_of(const std::vector<double>& ratios) {
  return std::size_t(std::min_element(ratios.begin(), ratios.end()) - ratios.begin());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: cpu_route_noise SIZE HINTS REPS   (e.g. 64 64,256,1024 20)\n");
    return 2;
  }
  const std::int64_t size = std::atoll(argv[1]);
  const std::vector<std::int64_t> hints = parse_hints(argv[2]);
  const int reps = std::max(1, std::atoi(argv[3]));
  const auto problem = Problem::create(size, size, size, DType::f32, "nn");
  if (!problem.is_ok()) {
    std::fprintf(stderr, "%s\n", problem.status().message().c_str());
    return 2;
  }
  auto session = Session::create();
  if (!session.is_ok()) {
    std::fprintf(stderr, "%s\n", session.status().message().c_str());
    return 1;
  }
  Session& s = **session;
  ProblemSpec family;
  family.m = family.n = family.k = kDynamic;
  GemmOpOptions options;
  options.hints = hints;
  auto op = GemmOp::create(s, family, options);
  if (!op.is_ok()) {
    std::fprintf(stderr, "%s\n", op.status().message().c_str());
    return 2;
  }
  std::vector<std::unique_ptr<GemmKernel>> kernels;
  std::vector<GemmKernel*> subs;
  std::printf("%s on %s\n", problem->describe().c_str(), s.device().device_class().c_str());
  for (const SubKernel& sub : (*op)->sub_kernels()) {
    auto kernel = s.kernel(*problem, sub.backend, sub.config);
    std::printf("  sub %zu: %s %s (hint %lld)%s\n", subs.size(), sub.backend.c_str(), sub.config.to_string().c_str(),
                (long long)sub.hints.front(), kernel.is_ok() ? "" : " cannot run this size: left out");
    if (!kernel.is_ok()) continue;
    kernels.push_back(std::move(kernel).value());
    subs.push_back(kernels.back().get());
  }
  // ROUTE_CONFIGS="cpu:mm=5 mn=64 thr=8;onednn:": more kernels timed beside the sub-kernels
  // (backend:config, separated by ';'), a config the tuner does not offer, say.
  if (const char* extra = std::getenv("ROUTE_CONFIGS")) {
    std::stringstream in(extra);
    for (std::string item; std::getline(in, item, ';');) {
      const std::size_t colon = item.find(':');
      if (colon == std::string::npos) {
        std::fprintf(stderr, "ROUTE_CONFIGS: \"%s\" is not backend:config\n", item.c_str());
        return 2;
      }
      auto config = KernelConfig::parse(item.substr(colon + 1));
      auto kernel = config.is_ok() ? s.kernel(*problem, item.substr(0, colon), *config)
                                   : Result<std::unique_ptr<GemmKernel>>(config.status());
      if (!kernel.is_ok()) {
        std::fprintf(stderr, "ROUTE_CONFIGS: %s: %s\n", item.c_str(), kernel.status().message().c_str());
        return 2;
      }
      std::printf("  extra %zu: %s\n", subs.size(), item.c_str());
      kernels.push_back(std::move(kernel).value());
      subs.push_back(kernels.back().get());
    }
  }
  if (subs.size() < 2) {
    std::printf("fewer than two sub-kernels run this size: nothing to route between\n");
    return 0;
  }
  TimingOptions timing = s.options().tuning.timing;
  if (const char* quiet = std::getenv("ROUTE_QUIET_MS")) timing.quiet_wait_ms = std::atof(quiet);

  // How long each sub-kernel's threads keep running after a sample's worth of calls: the
  // timer waits up to quiet_wait_ms for that before it times another candidate.
  std::vector<float> a(std::size_t(size * size), 0.5f), b = a, c = a;
  std::printf("until the process is quiet after 2 ms of calls (ms, five times; quiet wait %.0f ms):\n",
              timing.quiet_wait_ms);
  for (std::size_t i = 0; i < subs.size(); ++i) {
    std::printf("  sub %zu:", i);
    for (int t = 0; t < 5; ++t) {
      const auto start = std::chrono::steady_clock::now();
      while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(2)) {
        if (Status ran = subs[i]->run(a.data(), b.data(), c.data()); !ran.is_ok()) {
          std::fprintf(stderr, "sub %zu: %s\n", i, ran.message().c_str());
          return 1;
        }
      }
      const auto done = std::chrono::steady_clock::now();
      const bool quiet = wait_until_process_quiet(1000);
      std::printf("  %s%.2f", quiet ? "" : ">", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - done).count());
    }
    std::printf("\n");
  }

  std::vector<int> read_fastest(subs.size(), 0);
  std::printf("as routed (interleaved, %d rounds): median us, and ratio to sub 0 by round\n", timing.samples);
  for (int rep = 0; rep < reps; ++rep) {
    const std::vector<Result<TimingStats>> stats = s.time_kernels(*problem, subs, timing);
    std::vector<double> ratios;
    std::printf("  run %2d:", rep + 1);
    for (std::size_t i = 0; i < stats.size(); ++i) {
      if (!stats[i].is_ok()) {
        std::fprintf(stderr, "sub %zu: %s\n", i, stats[i].status().message().c_str());
        return 1;
      }
      ratios.push_back(median_ratio_by_round(stats[i]->sample_us, stats[0]->sample_us));
      std::printf("  %8.2f (%.3f)", stats[i]->median_us, ratios.back());
    }
    const std::size_t fastest = fastest_of(ratios);
    ++read_fastest[fastest];
    std::printf("  fastest: sub %zu\n", fastest);
  }
  std::printf("runs that read each sub fastest:");
  for (std::size_t i = 0; i < subs.size(); ++i) std::printf("  sub %zu: %d", i, read_fastest[i]);
  std::printf("\nalone (each timed by itself, %d rounds, three times over): median us\n", timing.samples);
  for (int pass = 0; pass < 3; ++pass) {
    std::printf("  pass %d:", pass + 1);
    for (std::size_t i = 0; i < subs.size(); ++i) {
      const std::vector<Result<TimingStats>> alone = s.time_kernels(*problem, {subs[i]}, timing);
      if (!alone.front().is_ok()) {
        std::fprintf(stderr, "sub %zu: %s\n", i, alone.front().status().message().c_str());
        return 1;
      }
      std::printf("  %8.2f", alone.front()->median_us);
    }
    std::printf("\n");
  }

  // A program whose layers call the sub-kernels in turn waits for nobody's threads to settle,
  // as the timer does: each sub-kernel's per-call time over turns of 50 calls, one after the
  // other, shows what the interleaving costs in use.
  constexpr int kTurns = 400, kCallsPerTurn = 50;
  std::vector<std::vector<double>> turns(subs.size());
  for (int turn = 0; turn < kTurns; ++turn) {
    for (std::size_t i = 0; i < subs.size(); ++i) {
      const auto start = std::chrono::steady_clock::now();
      for (int call = 0; call < kCallsPerTurn; ++call) {
        if (Status ran = subs[i]->run(a.data(), b.data(), c.data()); !ran.is_ok()) {
          std::fprintf(stderr, "sub %zu: %s\n", i, ran.message().c_str());
          return 1;
        }
      }
      turns[i].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
                         kCallsPerTurn);
    }
  }
  std::printf("in turn, no waiting (%d turns of %d calls): per-call us, median / 90th percentile / highest\n", kTurns,
              kCallsPerTurn);
  std::printf("  ");
  for (std::vector<double>& t : turns) {
    std::sort(t.begin(), t.end());
    std::printf("  %.2f / %.2f / %.2f", t[t.size() / 2], t[t.size() * 9 / 10], t.back());
  }
  std::printf("\n");
  return 0;
}
