// Does the caller's stack position move a two-thread product? One kernel (the stored pick of
// SIZE³ f32 nn) is timed through eight wrappers that differ only in how far down the stack they
// call it (0, STEP, 2·STEP, … bytes of alloca), interleaved in one run, twice; each column is
// its round-by-round ratio to the first wrapper.
//
// On the Zen 5 VM at 64³ (2 threads, 2 µs) the columns fell in two groups 5-10 % apart with a
// period of 64 bytes, and which offsets were slow changed from process to process: the pool
// worker reads the kernel's thread body and the variables it captures by reference from the
// caller's stack, and where those share cache lines with the stack the caller writes during its
// own share, the lines bounce between the cores (bench/results/2026-12-01g-cpu-amd-zen5.md,
// the hint table's size 64). parallel_run now leaves two cache lines of stack unused before its
// own share; with that gap the columns read alike (bench/results/2026-12-02-cpu-amd-zen5-handoff.md).
//
// Built with the bench targets (`cpu_stack_offset`). From the build folder:
//   bin/cpu_stack_offset 64 16      (the session's store as gemmtune's: GEMMTUNE_CACHE)
//   bin/cpu_stack_offset 64 16 "mm=4 mn=64 thr=2 isa=avx512 kernel=rows"   (that cpu config,
//                                   not the pick: two builds then time the same kernel)
#include <alloca.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gemmtune/session.h"
#include "gemmtune/timing.h"

using namespace gemmtune;

namespace {

// `kernel` called `pad` bytes further down the stack.
class CalledLower final : public GemmKernel {
 public:
  CalledLower(GemmKernel& kernel, int pad) : kernel_(kernel), pad_(pad) {}
  [[gnu::noinline]] Status run(const void* a, const void* b, void* c, void* stream) override {
    volatile char* gap = static_cast<volatile char*>(alloca(std::size_t(pad_) + 1));
    gap[0] = 0;
    return kernel_.run(a, b, c, stream);
  }
  const std::string& backend() const override { return kernel_.backend(); }
  const KernelConfig& config() const override { return kernel_.config(); }

 private:
  GemmKernel& kernel_;
  int pad_;
};

}  // namespace

int main(int argc, char** argv) {
  const int size = argc > 1 ? std::atoi(argv[1]) : 64;
  const int step = argc > 2 ? std::atoi(argv[2]) : 16;
  if (size < 1 || step < 0) {
    std::fprintf(stderr, "usage: cpu_stack_offset SIZE STEP [CPU-CONFIG] (SIZE >= 1, STEP >= 0)\n");
    return 2;
  }
  SessionOptions options;
  auto session = Session::create(options);
  if (!session.is_ok()) return std::fprintf(stderr, "%s\n", session.status().message().c_str()), 1;
  ProblemSpec spec;
  spec.m = spec.n = spec.k = size;
  auto problem = Problem::create(spec);
  if (!problem.is_ok()) return std::fprintf(stderr, "%s\n", problem.status().message().c_str()), 1;
  auto report = (*session)->tune_or_load(*problem);
  if (!report.is_ok()) return std::fprintf(stderr, "%s\n", report.status().message().c_str()), 1;
  const ChoiceReport* pick = report->best_choice();
  std::string backend = pick->backend;
  KernelConfig config = pick->config;
  if (argc > 3) {
    auto given = KernelConfig::parse(argv[3]);
    if (!given.is_ok()) return std::fprintf(stderr, "%s\n", given.status().message().c_str()), 2;
    backend = "cpu";
    config = *given;
  }
  auto kernel = (*session)->kernel(*problem, backend, config);
  if (!kernel.is_ok()) return std::fprintf(stderr, "%s\n", kernel.status().message().c_str()), 1;
  std::printf("%s %s, offsets 0..%d by %d bytes\n", backend.c_str(), config.to_string().c_str(), 7 * step, step);
  std::vector<std::unique_ptr<CalledLower>> wrappers;
  std::vector<GemmKernel*> timed;
  for (int i = 0; i < 8; ++i) {
    wrappers.push_back(std::make_unique<CalledLower>(**kernel, i * step));
    timed.push_back(wrappers.back().get());
  }
  TimingOptions timing = options.tuning.timing;
  timing.samples = 15;
  timing.warmup_runs = 8;
  for (int run = 0; run < 2; ++run) {
    auto stats = (*session)->time_kernels(*problem, timed, timing);
    for (const auto& s : stats) {
      if (!s.is_ok()) return std::fprintf(stderr, "%s\n", s.status().message().c_str()), 1;
    }
    std::printf("%.3f us:", stats[0]->median_us);
    for (const auto& s : stats) std::printf(" %.3f", median_ratio_by_round(s->sample_us, stats[0]->sample_us));
    std::printf("\n");
  }
  return 0;
}
