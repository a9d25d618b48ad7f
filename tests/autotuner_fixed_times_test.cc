// The autotuner's decisions on a harness of fixed times, without a clock: the prune after the
// short sample, who the final round holds, and the noise band that lets an earlier choice win
// a tie.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tuning/autotuner.h"

namespace gemmtune {
namespace {

// A kernel that does nothing and takes `us` a call, as the harness below reports it.
class FixedKernel final : public Kernel {
 public:
  explicit FixedKernel(double us) : us_(us) {}
  Status run(const GemmArgs&) override { return Status::ok(); }
  double us() const { return us_; }

 private:
  double us_;
};

// Configs rank = 1..N, config i taking times[i - 1] µs.
class FixedBackend final : public Backend {
 public:
  FixedBackend(std::string name, std::vector<double> times) : name_(std::move(name)), times_(std::move(times)) {}
  std::string_view name() const override { return name_; }
  std::string version() const override { return "fixed"; }
  std::vector<KernelConfig> configs(const Problem&, SearchSpace) const override {
    std::vector<KernelConfig> configs(times_.size());
    for (std::size_t i = 0; i < configs.size(); ++i) configs[i].rank = int(i) + 1;
    return configs;
  }
  Status can_implement(const Problem&, const KernelConfig& c) const override {
    return c.rank >= 1 && c.rank <= int(times_.size()) ? Status::ok() : unsupported("no such rank");
  }
  Result<std::unique_ptr<Kernel>> prepare(const Problem&, const KernelConfig& c) const override {
    return std::unique_ptr<Kernel>(std::make_unique<FixedKernel>(times_[std::size_t(c.rank - 1)]));
  }

 private:
  std::string name_;
  std::vector<double> times_;
};

// Every run is correct; every timing reads each kernel's fixed time in every round. Counts how
// often each time (µs) was in a timing batch.
class FixedTimesHarness final : public Harness {
 public:
  explicit FixedTimesHarness(std::map<double, int>* batches) : batches_(batches) {}
  Status prepare(const Problem&, std::uint64_t) override { return Status::ok(); }
  GemmArgs args() override { return {}; }
  void reset_c() override {}
  VerifyOutcome check() override { return {true, 0.0, ""}; }
  std::vector<Result<TimingStats>> time(const std::vector<Kernel*>& kernels, const TimingOptions& options) override {
    std::vector<Result<TimingStats>> out;
    for (Kernel* kernel : kernels) {
      const double us = static_cast<FixedKernel*>(kernel)->us();
      ++(*batches_)[us];
      TimingStats stats;
      stats.median_us = us;
      stats.samples = options.samples;
      stats.calls_per_sample = 1;
      stats.sample_us.assign(std::size_t(options.samples), us);
      stats.calibration_us = us;
      out.push_back(stats);
    }
    return out;
  }

 private:
  std::map<double, int>* batches_;
};

struct Tuning {
  TuneOutcome outcome;
  std::map<double, int> batches;  // how many timing batches each time was in
};

Tuning tune(BackendList backends, TuneOptions options = {}) {
  Tuning run;
  const Problem problem = *Problem::create(8, 8, 8, DType::f32);
  run.outcome = autotune(problem, *find_device("cpu"), backends, options, [&run](const DeviceInfo&) {
    return Result<std::unique_ptr<Harness>>(std::make_unique<FixedTimesHarness>(&run.batches));
  });
  return run;
}

BackendList one_backend(std::vector<double> times) {
  BackendList backends;
  backends.push_back(std::make_unique<FixedBackend>("fixed", std::move(times)));
  return backends;
}

TEST(AutotunerFixedTimes, ChoicesPastThePruneFactorGetTheShortSampleOnly) {
  Tuning run = tune(one_backend({12, 10, 16, 30, 100}));  // prune_factor 1.5: 15 µs and over go
  const auto& choices = run.outcome.report.choices;
  ASSERT_EQ(choices.size(), 5u);
  int pruned = 0;
  for (const ChoiceReport& c : choices) {
    const bool expect_pruned = c.time_us >= 15;
    EXPECT_EQ(c.status == ChoiceStatus::pruned, expect_pruned) << c.config.to_string() << " " << c.time_us;
    pruned += expect_pruned ? 1 : 0;
  }
  EXPECT_EQ(pruned, 3);
  // Short sample, full timing, final round for the two kept; the short sample alone for the rest.
  EXPECT_EQ(run.batches[10], 3);
  EXPECT_EQ(run.batches[12], 3);
  EXPECT_EQ(run.batches[16], 1);
  EXPECT_EQ(run.batches[100], 1);
  EXPECT_EQ(run.outcome.report.best, 1);
  ASSERT_NE(run.outcome.kernel, nullptr);
  EXPECT_EQ(static_cast<FixedKernel*>(run.outcome.kernel.get())->us(), 10);
}

TEST(AutotunerFixedTimes, AnEarlierChoiceWithinTheNoiseBandWinsTheTie) {
  int checked = 0;
  // noise_band 0.01: 10.05 against 10 is a tie, which the earlier choice wins; 10.2 is not.
  for (auto [first, expected_best] : {std::pair{10.05, 0}, std::pair{10.2, 1}}) {
    Tuning run = tune(one_backend({first, 10.0}));
    EXPECT_EQ(run.outcome.report.best, expected_best) << first;
    const ChoiceReport& winner = run.outcome.report.choices[std::size_t(expected_best)];
    EXPECT_GT(winner.final_rounds, 0) << "the pick came from the final round";
    EXPECT_EQ(run.batches[first], 3) << "short sample, full timing, final round";
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(AutotunerFixedTimes, TheFinalRoundHoldsTheFastestEachBackendsFastestAndEachBackendsLead) {
  // finalists 2: the fastest two (a's 10 and 10.2 µs), b's fastest (11), and each backend's
  // first choice, its lead (a's 10.5, b's 13). a's 10.3 and b's 12 are left out.
  BackendList backends;
  backends.push_back(std::make_unique<FixedBackend>("a", std::vector<double>{10.5, 10.0, 10.2, 10.3}));
  backends.push_back(std::make_unique<FixedBackend>("b", std::vector<double>{13.0, 11.0, 12.0}));
  TuneOptions options;
  options.finalists = 2;
  Tuning run = tune(std::move(backends), options);
  const auto& choices = run.outcome.report.choices;
  ASSERT_EQ(choices.size(), 7u);
  EXPECT_EQ(run.outcome.report.best, 1);  // a's 10 µs
  int finalists = 0;
  for (const ChoiceReport& c : choices) {
    const bool expected = c.time_us != 10.3 && c.time_us != 12.0;
    EXPECT_EQ(c.final_rounds > 0, expected) << c.backend << " " << c.time_us;
    EXPECT_EQ(run.batches[c.time_us], expected ? 3 : 2) << c.backend << " " << c.time_us;
    finalists += c.final_rounds > 0 ? 1 : 0;
  }
  EXPECT_EQ(finalists, 5);
}

TEST(AutotunerFixedTimes, WithoutPruneOrFinalRoundTheFastestMedianIsPicked) {
  TuneOptions options;
  options.prune_factor = 0;
  options.finalists = 0;
  Tuning run = tune(one_backend({30, 20, 25, 40}), options);
  EXPECT_EQ(run.outcome.report.best, 1);
  for (const ChoiceReport& c : run.outcome.report.choices) {
    EXPECT_EQ(c.status, ChoiceStatus::ok);
    EXPECT_EQ(c.final_rounds, 0);
  }
  for (double us : {30.0, 20.0, 25.0, 40.0}) EXPECT_EQ(run.batches[us], 1) << us;
}

}  // namespace
}  // namespace gemmtune
