// gemmtune's kernels as Session::kernel handles against libxsmm's, on one shape:
//   ./tiny M N K libxsmm "cpu:mm=16 mn=16 thr=1 isa=avx512 algo=4" ...
// 41 rounds of 20000 calls each, interleaved; the median and the fastest round per call.
// Compiled with -O2 -Iinclude and linked with the CLI's link line
// (build/tools/gemmtune/CMakeFiles/gemmtune_cli.dir/link.txt, less the CLI's objects).
// Our tile kernels vs libxsmm's handles on tiny shapes, raw loops.
#include <gemmtune/session.h>
#include <libxsmm.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
using namespace gemmtune;
int main(int argc, char** argv) {
  const long M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);
  auto session = std::move(Session::create()).value();
  Problem p = *Problem::create(M, N, K, DType::f32);
  std::vector<std::unique_ptr<GemmKernel>> ks;
  std::vector<std::string> names;
  for (int i = 4; i < argc; ++i) {
    std::string s = argv[i];
    auto colon = s.find(':');
    std::string be = s.substr(0, colon), cfg = colon == std::string::npos ? "" : s.substr(colon + 1);
    KernelConfig c = cfg.empty() ? KernelConfig{} : *KernelConfig::parse(cfg);
    auto k = session->kernel(p, be, c);
    if (!k.is_ok()) { printf("%s: %s\n", s.c_str(), k.status().message().c_str()); return 1; }
    ks.push_back(std::move(k).value()); names.push_back(s);
  }
  float* A = (float*)aligned_alloc(64, 4096 * 64); float* B = (float*)aligned_alloc(64, 4096 * 64); float* C = (float*)aligned_alloc(64, 4096 * 64);
  for (int i = 0; i < 4096 * 16; ++i) A[i] = B[i] = C[i] = 0.5f;
  const int calls = 20000;
  std::vector<std::vector<double>> t(ks.size());
  for (int r = 0; r < 41; ++r)
    for (size_t i = 0; i < ks.size(); ++i) {
      auto t0 = std::chrono::steady_clock::now();
      for (int c = 0; c < calls; ++c) (void)ks[i]->run(A, B, C);
      auto t1 = std::chrono::steady_clock::now();
      t[i].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
    }
  for (size_t i = 0; i < ks.size(); ++i) {
    std::sort(t[i].begin(), t[i].end());
    printf("%ldx%ldx%ld %-45s %6.1f ns (min %6.1f)\n", M, N, K, names[i].c_str(), t[i][t[i].size() / 2], t[i][0]);
  }
}
