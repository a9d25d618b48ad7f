// Session::gemm vs a kernel handle of the same pick, interleaved by the harness (Session::time_kernels)
// beside the peers; the copy of 2026-11-24d-cpu-harness-order/position.cc, printing nanoseconds.
#include <cstdio>
#include <cstdlib>
#include "gemmtune/session.h"
#include "gemmtune/problem.h"
using namespace gemmtune;
class ViaGemm final : public GemmKernel {
 public:
  ViaGemm(Session& s, const Problem& p) : s_(s), p_(p) {}
  Status run(const void* a, const void* b, void* c, void* st) override { return s_.gemm(p_, a, b, c, st); }
  const std::string& backend() const override { return n_; }
  const KernelConfig& config() const override { return c_; }
 private:
  Session& s_; Problem p_; std::string n_ = "gemm"; KernelConfig c_;
};
int main(int argc, char** argv) {
  SessionOptions o; o.store.path = "off";
  auto s = Session::create(o); if (!s.is_ok()) { std::puts(s.status().message().c_str()); return 1; }
  auto& S = **s;
  auto p = Problem::create(std::atoll(argv[1]), std::atoll(argv[2]), std::atoll(argv[3]), DType::f32, argv[4]);
  auto rep = S.tune(*p);
  auto pick = S.pick(*p);
  std::printf("pick %s %s\n", pick->backend.c_str(), pick->config.to_string().c_str());
  auto h1 = S.kernel(*p, pick->backend, pick->config);
  auto h2 = S.kernel(*p, pick->backend, pick->config);
  ViaGemm g1(S, *p), g2(S, *p);
  TimingOptions t; t.samples = 31;
  auto od = S.kernel(*p, "onednn");
  auto ob = S.kernel(*p, "openblas");
  auto show = [&](const char* label, std::vector<GemmKernel*> ks, std::vector<const char*> names) {
    auto r = S.time_kernels(*p, ks, t);
    std::printf("%-28s", label);
    for (size_t x = 0; x < ks.size(); ++x) std::printf("  %s %.3f", names[x], r[x]->median_us);
    std::printf("\n");
  };
  for (int round = 0; round < 2; ++round) {
    show("after openblas", {&g1, h1->get(), od->get(), ob->get()}, {"gemm", "handle", "onednn", "openblas"});
    show("after onednn", {&g1, h1->get(), ob->get(), od->get()}, {"gemm", "handle", "openblas", "onednn"});
    show("no openblas", {&g1, h1->get(), od->get()}, {"gemm", "handle", "onednn"});
    show("no peers", {&g1, h1->get(), &g2, h2->get()}, {"gemm", "handle", "gemm", "handle"});
  }
}
