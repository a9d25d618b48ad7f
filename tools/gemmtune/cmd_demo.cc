// gemmtune demo (what `make demo` runs): a program whose GEMM shapes change at run time, as an
// inference server's do. Each shape is tuned on first sight and dispatched directly after;
// then gemmtune is timed against the peer libraries on every shape, in the same run.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "common.h"
#include "peer_comparison.h"
#include "gemmtune/route.h"

namespace gemmtune::cli {
namespace {

struct Request {
  std::int64_t m, n, k;
  const char* what;
};

// A 2048-wide linear layer (C = X·Wᵀ) at batch sizes arriving in an uneven order, and the
// small products of a model's heads; every shape recurs, as in a serving loop.
std::vector<Request> workload() {
  std::vector<Request> requests;
  const std::int64_t batches[] = {100, 1, 8, 100, 256, 1, 32, 8, 256, 1, 100, 32};
  for (std::int64_t m : batches) requests.push_back({m, 2048, 2048, "linear"});
  const Request small[] = {{8, 8, 8, "small"}, {17, 33, 65, "small"}, {64, 64, 64, "small"}, {3, 50, 7, "small"}};
  for (int round = 0; round < 2; ++round) {
    for (const Request& r : small) requests.push_back(r);
  }
  return requests;
}

}  // namespace

int run_demo(int argc, char** argv) {
  std::vector<OptionSpec> specs = {
      {"json", false, "--json                 print the comparison as JSON"},
      {"route", true, "--route R              new shapes: autotune (tune each, default) | benchmark |\n"
                      "                       distance (route among kernels tuned per size hint of m)"},
      {"hints", true, "--hints H,H,...        size hints of m for --route benchmark|distance (default 64,256,4096)"},
  };
  for (OptionSpec& spec : session_options()) specs.push_back(spec);
  if (asks_for_help(argc, argv)) {
    std::cout << usage("demo",
                       "Runs a workload whose GEMM shapes vary at run time: each new shape is tuned on first\n"
                       "sight, known shapes dispatch directly; then compares gemmtune with oneDNN and OpenBLAS.",
                       specs);
    return kExitOk;
  }
  auto args = Args::parse("demo", specs, argc, argv, 2);
  if (!args.is_ok()) return fail(args.status());
  auto options = session_options_from(*args);
  if (!options.is_ok()) return fail(options.status());
  // A demo should finish in about a minute on two cores: shorter samples than a benchmark.
  if (!args->has("samples")) options->tuning.timing.samples = 5;
  if (!args->has("min-sample-ms")) options->tuning.timing.min_sample_ms = 1.0;
  if (args->has("route")) {
    auto route = Route::parse(args->get("route", ""));
    if (!route.is_ok()) return fail(invalid_argument("--route: " + route.status().message()));
    if (route->policy == RoutePolicy::fixed) return fail(invalid_argument("--route: fixed:I is for GemmOp tests"));
    options->routing.route = *route;
  }
  auto hints = args->get_int_list("hints", options->routing.hints);
  if (!hints.is_ok()) return fail(hints.status());
  options->routing.hints = *hints;
  auto session = Session::create(*options);
  if (!session.is_ok()) return fail(session.status());
  const DeviceInfo& device = (*session)->device();
  if (device.kind != DeviceKind::cpu) {
    return fail(invalid_argument("demo runs on the CPU; on a GPU use `gemmtune bench --device " + device.name +
                                 " --shapes llm`"));
  }
  std::printf("gemmtune demo on %s (%d threads, %s kernels)\n", device.cpu.model.c_str(), device.cpu.logical_cores,
              std::string(cpu_isa_name(device.cpu.best_isa())).c_str());
  std::string names;
  for (const std::string& name : (*session)->backend_names()) names += " " + name;
  std::printf("backends:%s\n\n", names.c_str());

  // Part 1: the workload through Session::gemm, the way a user's program calls it.
  const std::vector<Request> requests = workload();
  std::printf("serving %zu requests whose shapes change at run time (f32):\n", requests.size());
  int tuned = 0;
  double tuning_s = 0;
  std::vector<ShapeComparison> rows;
  const std::vector<std::string> peers = peer_backends(**session);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const Request& r = requests[i];
    auto problem = Problem::create(r.m, r.n, r.k, DType::f32, r.what == std::string("linear") ? "nt" : "nn");
    if (!problem.is_ok()) return fail(problem.status());
    std::vector<float> a(std::size_t(problem->a_elements()), 0.5f), b(std::size_t(problem->b_elements()), 0.25f);
    std::vector<float> c(std::size_t(problem->c_elements()));
    const bool known = (*session)->pick(*problem).is_ok();
    const auto start = std::chrono::steady_clock::now();
    Status status = (*session)->gemm(*problem, a.data(), b.data(), c.data());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!status.is_ok()) return fail(status);
    if (known) {
      std::printf("  %2zu  %-6s m=%-5lld n=%-5lld k=%-5lld known shape: dispatched, %.3f ms\n", i + 1, r.what,
                  (long long)r.m, (long long)r.n, (long long)r.k, seconds * 1e3);
      continue;
    }
    ++tuned;
    tuning_s += seconds;
    auto pick = (*session)->pick(*problem);
    std::printf("  %2zu  %-6s m=%-5lld n=%-5lld k=%-5lld first sight: %s in %.2f s -> %s %s\n", i + 1, r.what,
                (long long)r.m, (long long)r.n, (long long)r.k, pick->routed ? "routed" : "tuned", seconds,
                pick->backend.c_str(), pick->config.to_string().c_str());
  }
  std::printf("%zu requests, %d shapes met for the first time (%.1f s in all); the other %zu dispatched directly\n\n",
              requests.size(), tuned, tuning_s, requests.size() - std::size_t(tuned));

  // Part 2: every distinct shape, gemmtune against the peers in the same run.
  std::fprintf(stderr, "timing gemmtune against%s%s...\n", peers.empty() ? " (no peers built)" : "",
               peers.empty() ? "" : (" " + peers.front() + (peers.size() > 1 ? " and " + peers.back() : "")).c_str());
  for (const Request& r : requests) {
    bool seen = false;
    for (const ShapeComparison& row : rows) seen = seen || (row.m == r.m && row.n == r.n && row.k == r.k);
    if (seen) continue;
    auto problem = Problem::create(r.m, r.n, r.k, DType::f32, r.what == std::string("linear") ? "nt" : "nn");
    auto row = compare_with_peers(**session, *problem, peers, options->tuning.timing);
    if (!row.is_ok()) return fail(row.status());
    rows.push_back(*row);
  }
  if (args->flag("json")) {
    nlohmann::json out = comparison_json(rows);
    out["device"] = device_json(device);
    std::cout << out.dump(2) << "\n";
  } else {
    std::printf("gemmtune (per call, dispatch included) against the peers, same run; ratio = peer time / gemmtune time:\n");
    std::cout << comparison_table(rows);
  }
  return kExitOk;
}

}  // namespace gemmtune::cli
