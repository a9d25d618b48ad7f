// Probe: how far apart the interleaved timing reads the same kernel (two handles of one
// config) and our kernel against oneDNN, round by round, on LLM shapes of 20-40 ms; sets of
// 3 and 5 kernels (with oneDNN's sgemm and OpenBLAS), 15 samples, 3 times each. Built at
// fa08fd1, from the repository root:
//   g++ -O2 -std=c++20 -Iinclude probe-spread.cc build/lib/libgemmtune.a -Wl,-rpath,/usr/local/cuda/lib \
//     /usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so /usr/lib/x86_64-linux-gnu/libdnnl.so /usr/lib/libxsmm.a \
//     /usr/lib/libxsmmnoblas.a /usr/local/cuda/lib/libcudart.so /usr/local/cuda/lib/libnvrtc.so \
//     /usr/local/cuda/lib/stubs/libcuda.so /usr/local/cuda/lib/libcublasLt.so -lsqlite3 -lhiredis -lxgboost \
//     -lopenblas -lm -lrt -ldl -lpthread -o probe
//   ./probe 15
#include <cstdio>
#include <memory>
#include <string>
#include <vector>
#include "gemmtune/session.h"
using namespace gemmtune;
int main(int argc, char** argv) {
  int samples = argc > 1 ? std::atoi(argv[1]) : 15;
  SessionOptions so; so.store.mode = StoreMode::off; so.lut_path = "";
  auto session = std::move(Session::create(so)).value();
  struct Case { int m, n, k; const char* cfg; };
  std::vector<Case> cases = {{64, 14336, 4096, "mm=64 mn=6 thr=2 isa=avx512 algo=3"},
                             {256, 6144, 4096, "bm=96 bn=512 bk=1024 mm=6 mn=64 thr=2 isa=avx512"}};
  for (const Case& c : cases) {
    Problem p = std::move(Problem::create(c.m, c.n, c.k, DType::f32, "nt")).value();
    std::vector<std::unique_ptr<GemmKernel>> ks;
    std::vector<std::string> names = {"cpu", "cpu#2", "onednn", "onednn-sgemm", "openblas"};
    ks.push_back(std::move(session->kernel(p, "cpu", KernelConfig::parse(c.cfg).value())).value());
    ks.push_back(std::move(session->kernel(p, "cpu", KernelConfig::parse(c.cfg).value())).value());
    ks.push_back(std::move(session->kernel(p, "onednn", KernelConfig::parse("thr=2").value())).value());
    ks.push_back(std::move(session->kernel(p, "onednn", KernelConfig::parse("thr=2 algo=1").value())).value());
    ks.push_back(std::move(session->kernel(p, "openblas", KernelConfig::parse("-").value())).value());
    TimingOptions t; t.samples = samples;
    for (int set : {3, 5, 3, 5, 3, 5}) {
      std::vector<GemmKernel*> run;
      for (int i = 0; i < set; ++i) run.push_back(ks[i].get());
      auto st = session->time_kernels(p, run, t);
      std::printf("%dx%dx%d set of %d:", c.m, c.n, c.k, set);
      for (int i = 0; i < set; ++i) std::printf("  %s %.0f (mad %.0f)", names[i].c_str(), st[i]->median_us, st[i]->mad_us);
      std::printf("\n    cpu/od per round:");
      for (std::size_t s = 0; s < st[0]->sample_us.size(); ++s) std::printf(" %.3f", st[0]->sample_us[s] / st[2]->sample_us[s]);
      std::printf("\n    cpu/cpu#2 per round:");
      for (std::size_t s = 0; s < st[0]->sample_us.size(); ++s) std::printf(" %.3f", st[0]->sample_us[s] / st[1]->sample_us[s]);
      std::printf("\n    cpu us:");
      for (double v : st[0]->sample_us) std::printf(" %.0f", v);
      std::printf("\n");
      std::fflush(stdout);
    }
  }
}
