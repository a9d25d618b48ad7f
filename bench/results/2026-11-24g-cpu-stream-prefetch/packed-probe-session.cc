// Probe (2026-11-24g): the packed kernel, the columns kernel and oneDNN at M = 64-256 x 4096 x 4096, nt and nn,
// through the Session API. Link line: bench/results/2026-11-24f-cpu-close-round/probe-spread.cc.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>
#include "gemmtune/session.h"
using namespace gemmtune;
int main(int argc, char** argv) {
  int samples = argc > 1 ? std::atoi(argv[1]) : 9;
  SessionOptions so; so.store.mode = StoreMode::off; so.lut_path = "";
  auto session = std::move(Session::create(so)).value();
  struct Case { int m, n, k; const char* layout; std::vector<std::pair<const char*, const char*>> ks; };
  const char* packed = "bm=96 bn=512 bk=1024 mm=6 mn=64 thr=2 isa=avx512";
  std::vector<Case> cases;
  for (int m : {64, 100, 128, 256}) {
    cases.push_back({m, 4096, 4096, "nt", {{"cpu", packed}, {"cpu", "mm=64 mn=6 thr=2 isa=avx512 algo=3"}, {"onednn", "thr=2"}}});
    cases.push_back({m, 4096, 4096, "nn", {{"cpu", packed}, {"onednn", "thr=2"}}});
  }
  for (const Case& c : cases) {
    Problem p = std::move(Problem::create(c.m, c.n, c.k, DType::f32, c.layout)).value();
    std::vector<std::unique_ptr<GemmKernel>> ks;
    std::vector<GemmKernel*> run;
    for (auto& [b, cfg] : c.ks) {
      auto k = session->kernel(p, b, KernelConfig::parse(cfg).value());
      if (!k.is_ok()) { std::printf("%s %s: %s\n", b, cfg, k.status().message().c_str()); continue; }
      ks.push_back(std::move(k).value()); run.push_back(ks.back().get());
    }
    TimingOptions t; t.samples = samples;
    auto st = session->time_kernels(p, run, t);
    double fl = 2.0 * c.m * c.n * c.k;
    std::printf("%dx%dx%d %s:", c.m, c.n, c.k, c.layout);
    for (std::size_t i = 0; i < run.size(); ++i) std::printf("  [%s] %.0f us %.0f GF/s", c.ks[i].second, st[i]->median_us, fl / st[i]->median_us / 1e3);
    std::printf("\n"); std::fflush(stdout);
  }
}
