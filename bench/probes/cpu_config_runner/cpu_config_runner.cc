// Times given configs of gemmtune's CPU backends on one shape, interleaved in the same rounds,
// for a kernel change or a config the tuner would not offer. The kernels come from the
// backends exactly as the tuner prepares them.
//
// Built with the bench targets (`cpu_config_runner`). From the build folder:
//   bin/cpu_config_runner 1024 1024 1024 f32 nn "bm=96 bn=512 bk=256 mm=6 mn=16 thr=2 isa=avx2"
//     "onednn:" "openblas:"
//
//   cpu_config_runner M N K DTYPE LAYOUT CONFIG [CONFIG ...]
//     CONFIG   as the tuner prints it, of the `cpu` backend, or prefixed with another backend
//              ("onednn:", "openblas:", "libxsmm:"): an empty config is that backend's first
//
// Each round times every config for at least PROBE_ROUND_MS (default 50) ms of back-to-back
// calls, in turn; PROBE_ROUNDS rounds (default 11) after one to warm up. Before each config's
// turn it waits, as the tuner's timer does, until no other thread of the process runs (libgomp
// under oneDNN spins some 6 ms after a parallel region: on two cores, the config timed after
// oneDNN's ran 10-20 % slower, the same config read 0.84-0.89 of itself), then makes one
// untimed call. Prints each config's median and best per call, and GFLOP/s at the median.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/test_buffers.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/timing.h"

using namespace gemmtune;

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::max(1, std::atoi(v)) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: cpu_config_runner M N K DTYPE LAYOUT CONFIG [CONFIG ...]\n");
    return 2;
  }
  const auto dtype = parse_dtype(argv[4]);
  if (!dtype.is_ok()) {
    std::fprintf(stderr, "%s\n", dtype.status().message().c_str());
    return 2;
  }
  const auto problem = Problem::create(std::atoll(argv[1]), std::atoll(argv[2]), std::atoll(argv[3]), *dtype, argv[5]);
  if (!problem.is_ok()) {
    std::fprintf(stderr, "%s\n", problem.status().message().c_str());
    return 2;
  }
  const auto device = find_device("cpu");
  if (!device.is_ok()) {
    std::fprintf(stderr, "%s\n", device.status().message().c_str());
    return 1;
  }
  const BackendList backends = create_backends(*device);
  const Problem& p = *problem;
  // The operands the tuner times with: random inputs, C inside guard bytes, the same placement.
  TestBuffers buffers(p, 1);

  std::vector<std::string> names;
  std::vector<std::unique_ptr<Kernel>> kernels;
  for (int i = 6; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::size_t colon = arg.find(':');
    const std::string name = colon == std::string::npos ? "cpu" : arg.substr(0, colon);
    const std::string text = colon == std::string::npos ? arg : arg.substr(colon + 1);
    Backend* backend = nullptr;
    for (auto& candidate : backends)
      if (candidate->name() == name) backend = candidate.get();
    if (backend == nullptr) {
      std::fprintf(stderr, "no backend %s in this build\n", name.c_str());
      return 2;
    }
    KernelConfig config;
    if (text.empty()) {
      const auto offered = backend->configs(p, SearchSpace::default_space);
      if (offered.empty()) {
        std::fprintf(stderr, "%s offers no config for this problem\n", name.c_str());
        return 2;
      }
      config = offered.front();
    } else {
      const auto parsed = KernelConfig::parse(text);
      if (!parsed.is_ok()) {
        std::fprintf(stderr, "config %s: %s\n", argv[i], parsed.status().message().c_str());
        return 2;
      }
      config = *parsed;
      // A peer prepares whatever it is given and ignores fields it has no use for (OpenBLAS
      // runs on every core whatever `thr` says), so a peer's config must be one it offers.
      if (name != "cpu") {
        const auto offered = backend->configs(p, SearchSpace::exhaustive);
        if (std::find(offered.begin(), offered.end(), config) == offered.end()) {
          std::string list;
          for (const auto& c : offered) list += " '" + c.to_string() + "'";
          std::fprintf(stderr, "config %s: %s does not offer it; it offers%s\n", argv[i], name.c_str(), list.c_str());
          return 2;
        }
      }
    }
    auto kernel = backend->prepare(p, config);
    if (!kernel.is_ok()) {
      std::fprintf(stderr, "config %s: %s\n", argv[i], kernel.status().message().c_str());
      return 2;
    }
    names.push_back(name + ":" + config.to_string());
    kernels.push_back(std::move(*kernel));
  }

  using Clock = std::chrono::steady_clock;
  const double round_ms = env_int("PROBE_ROUND_MS", 50);
  const int rounds = env_int("PROBE_ROUNDS", 11);
  std::vector<std::vector<double>> us(kernels.size());
  // One call of config i; false (and the reason printed) when it fails.
  auto call = [&](std::size_t i) {
    const Status status = kernels[i]->run(GemmArgs{buffers.a(), buffers.b(), buffers.c(), nullptr});
    if (!status.is_ok()) std::fprintf(stderr, "%s: %s\n", names[i].c_str(), status.message().c_str());
    return status.is_ok();
  };
  for (int round = -1; round < rounds; ++round) {
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      wait_until_process_quiet(TimingOptions{}.quiet_wait_ms);
      if (!call(i)) return 1;  // untimed, after the wait
      int calls = 0;
      const auto start = Clock::now();
      std::chrono::duration<double, std::milli> spent{};
      do {
        if (!call(i)) return 1;
        ++calls;
        spent = Clock::now() - start;
      } while (spent.count() < round_ms);
      if (round >= 0) us[i].push_back(1000.0 * spent.count() / calls);
    }
  }
  std::printf("%lldx%lldx%lld %s %s, median (best) of %d rounds of >= %.0f ms\n", (long long)p.m(), (long long)p.n(),
              (long long)p.k(), argv[4], argv[5], rounds, round_ms);
  const double flops = 2.0 * double(p.m()) * double(p.n()) * double(p.k());
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    std::sort(us[i].begin(), us[i].end());
    const double median = us[i][us[i].size() / 2];
    std::printf("%10.2f us (%10.2f) %7.1f GFLOP/s  %s\n", median, us[i].front(), flops / median / 1e3, names[i].c_str());
  }
  return 0;
}
