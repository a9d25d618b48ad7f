// Does a candidate's predecessor change its time? Same kernel twice (Session::gemm, handle)
// among peers; cyclic rounds vs a Williams design.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include "gemmtune/session.h"
#include "gemmtune/problem.h"
using namespace gemmtune;
int main(int argc, char** argv) {
  SessionOptions o; o.store.path = "off";
  auto S = std::move(*Session::create(o));
  auto p = *Problem::create(std::atoll(argv[1]), std::atoll(argv[2]), std::atoll(argv[3]), DType::f32, argv[4]);
  S->tune(p);
  auto pick = *S->pick(p);
  std::printf("pick %s %s\n", pick.backend.c_str(), pick.config.to_string().c_str());
  auto h = std::move(*S->kernel(p, pick.backend, pick.config));
  auto od = std::move(*S->kernel(p, "onednn"));
  auto ob = std::move(*S->kernel(p, "openblas"));
  size_t bytes_a = p.m() * p.k() * 4, bytes_b = p.k() * p.n() * 4, bytes_c = p.m() * p.n() * 4;
  std::vector<float> A(bytes_a / 4), B(bytes_b / 4), C(bytes_c / 4);
  std::mt19937 g(1); std::uniform_real_distribution<float> u(-1, 1);
  for (auto& x : A) x = u(g); for (auto& x : B) x = u(g);
  std::vector<std::function<void()>> cand = {
    [&] { S->gemm(p, A.data(), B.data(), C.data()); },
    [&] { h->run(A.data(), B.data(), C.data()); },
    [&] { od->run(A.data(), B.data(), C.data()); },
    [&] { ob->run(A.data(), B.data(), C.data()); }};
  const char* names[] = {"gemm", "handle", "onednn", "openblas"};
  const int N = 4, calls = std::atoi(argv[5]);
  auto williams = [&](int r, int j) { int b = j == 0 ? 0 : (j % 2 ? (j + 1) / 2 : N - j / 2); return (b + r) % N; };
  auto cyclic = [&](int r, int j) { return (j + r) % N; };
  for (int design = 0; design < 2; ++design) for (int rep = 0; rep < 2; ++rep) {
    std::vector<std::vector<double>> t(N);
    for (int r = 0; r < 40; ++r) for (int j = 0; j < N; ++j) {
      int i = design == 0 ? cyclic(r, j) : williams(r, j);
      cand[i]();  // settle
      auto t0 = std::chrono::steady_clock::now();
      for (int c = 0; c < calls; ++c) cand[i]();
      t[i].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / calls);
    }
    std::printf("%-9s", design == 0 ? "cyclic" : "williams");
    for (int i = 0; i < N; ++i) { auto v = t[i]; std::sort(v.begin(), v.end()); std::printf("  %s %.1f", names[i], v[v.size() / 2]); }
    std::printf("\n");
  }
}
