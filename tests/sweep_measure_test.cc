// What a sweep records of each config (the cost model's data): a config that cannot run is
// skipped with its reason and what the check cost, the others verified and timed; a sample of
// each backend's space is the same every time and kept in the space's order.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tuning/autotuner.h"
#include "tuning/sweep_measure.h"

namespace gemmtune {
namespace {

// Configs rank = 1..10, each running the reference kernel; the even ones cannot run.
class OddBackend final : public Backend {
 public:
  std::string_view name() const override { return "odd"; }
  std::string version() const override { return "1"; }
  std::vector<KernelConfig> configs(const Problem&, SearchSpace) const override {
    std::vector<KernelConfig> configs(10);
    for (std::size_t i = 0; i < configs.size(); ++i) configs[i].rank = int(i) + 1;
    return configs;
  }
  Status can_implement(const Problem&, const KernelConfig& c) const override {
    return c.rank % 2 == 0 ? unsupported("even rank") : Status::ok();
  }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& p, const KernelConfig&) const override {
    return reference_->prepare(p, {});
  }

 private:
  std::unique_ptr<Backend> reference_ = std::move(create_backends(*find_device("cpu")).back());
};

SweepOptions quick_sweep() {
  SweepOptions options;
  options.timing.samples = 1;
  options.timing.min_sample_ms = 0.01;
  return options;
}

TEST(SweepMeasure, ASkippedConfigKeepsItsReasonAndWhatTheCheckCost) {
  const DeviceInfo device = *find_device("cpu");
  BackendList backends;
  backends.push_back(std::make_unique<OddBackend>());
  const Problem p = *Problem::create(ProblemSpec{.m = 9, .n = 7, .k = 5});
  auto shape = measure_every_config(p, device, backends, quick_sweep());
  ASSERT_TRUE(shape.is_ok()) << shape.status().message();
  ASSERT_EQ(shape->configs.size(), 10u);
  int skipped = 0, timed = 0;
  for (const ConfigMeasurement& m : shape->configs) {
    EXPECT_GE(m.prepare_us, 0) << m.config.to_string();
    if (m.config.rank % 2 == 0) {
      EXPECT_EQ(m.status, ChoiceStatus::skipped);
      EXPECT_EQ(m.reason, "even rank");
      EXPECT_LT(m.time_us, 0);
      ++skipped;
    } else {
      EXPECT_EQ(m.status, ChoiceStatus::ok) << m.reason;
      EXPECT_GT(m.time_us, 0);
      EXPECT_GT(m.verify_us, 0);
      ++timed;
    }
  }
  EXPECT_EQ(skipped, 5);
  EXPECT_EQ(timed, 5);
}

TEST(SweepMeasure, ASampleIsTheSameEveryTimeAndInTheSpacesOrder) {
  const DeviceInfo device = *find_device("cpu");
  BackendList backends;
  backends.push_back(std::make_unique<OddBackend>());
  const Problem p = *Problem::create(ProblemSpec{.m = 9, .n = 7, .k = 5});
  SweepOptions options = quick_sweep();
  options.configs_per_backend = 4;
  std::vector<int> first, second;
  for (std::vector<int>* algos : {&first, &second}) {
    auto shape = measure_every_config(p, device, backends, options);
    ASSERT_TRUE(shape.is_ok()) << shape.status().message();
    for (const ConfigMeasurement& m : shape->configs) algos->push_back(m.config.rank);
  }
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first, second);
  EXPECT_TRUE(std::is_sorted(first.begin(), first.end()));
  EXPECT_EQ(std::adjacent_find(first.begin(), first.end()), first.end()) << "no config twice";
  options.configs_per_backend = 20;
  auto all = measure_every_config(p, device, backends, options);
  ASSERT_TRUE(all.is_ok());
  EXPECT_EQ(all->configs.size(), 10u) << "a sample larger than the space is the whole space";
}

}  // namespace
}  // namespace gemmtune
